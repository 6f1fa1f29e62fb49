"""Evidence from vLLM / SGLang server logs and NCCL INFO logs; the NCCL settings the engine runs with.

Facts:
- `serving_log` (ServingLog): what a pasted server log says: custom all-reduce disabled and why,
  the P2P probe (cache file read/written, P2P not supported), the transport NCCL chose per channel
  (`via P2P/IPC`, `via P2P/CUMEM`, `via P2P/direct pointer`, `via SHM/direct`, `via NET/Socket`,
  `via NET/IB`), the NCCL version, the NCCL_* values NCCL reports reading, its network and GPU
  Direct RDMA lines, CUDA graph capture or eager mode, tensor-parallel size, and NCCL's cuMem
  host-memory / NUMA fallback.
- `vllm_p2p_cache` (VllmP2pCache): vLLM's cached real P2P probe results,
  `$VLLM_CACHE_ROOT/gpu_p2p_access_cache_for_<CUDA_VISIBLE_DEVICES>.json` (default root
  `~/.cache/vllm`; all_reduce_utils.py in vLLM), read as the engine's user sees them.
- `nccl_config` (NcclConfig): every NCCL_* setting with where it comes from: the engine processes'
  environment (/proc/<pid>/environ), /etc/nccl.conf, ~/.nccl.conf of the engine's user,
  $NCCL_CONF_FILE (NCCL >= 2.23, src/misc/param.cc), the `NCCL_X set by environment to Y` lines of
  a pasted NCCL INFO log, the variables set on a pasted nccl-tests command line (`nccl_test_runs`), and
  (weakest: the shell it ran in) a pasted collect_env report.
- `nccl_test_runs` (NcclTestRuns): each pasted nccl-tests run's program and the NCCL_* variables set on its
  command line, the GPUs each run used (its rank lines, through the CUDA_VISIBLE_DEVICES it sets), and the result
  rows whose `#wrong` count shows the run's check of its data (0, or above 0).
- `nccl_nodes` (NcclNodes): whether the NCCL job of a pasted NCCL log or nccl-tests output spans nodes, from the
  hosts and node counts they show.

Recorded form of a pasted log: the document ENGINE_LOG (facts/sources.py; `doc/engine_log.txt` in
a snapshot), its lines in the order they appeared; several pasted logs are appended. Live, no
server log is readable in general (journald, docker logs, files anywhere), so `serving_log` is
"not in the source" and the checks use the engine's /proc entries instead; paste the log with
`--from` to use it.

Message texts, verified against the sources:
- vLLM `custom_all_reduce.py`: "Custom allreduce is disabled because it's not supported on more
  than two PCIe-only GPUs", "... because your platform lacks GPU P2P capability or P2P test
  failed", "... due to an unsupported world size", "... because this process group spans across
  nodes", "... because of missing custom allreduce library". SGLang's custom_all_reduce.py is
  adapted from vLLM's and logs the same texts; its 2026 releases write the name as one word
  ("CustomAllreduce is disabled ...", "CustomAllReduceV2 is disabled ...": CUSTOM_AR_DISABLED).
- vLLM `all_reduce_utils.py`: "generating GPU P2P access cache in <path>", "reading GPU P2P access
  cache from <path>".
- NCCL INFO channel lines: `host:pid:tid [dev] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read`
  (older `Channel 00 : 0[3d000] -> 1[3e000] via P2P/direct pointer`, before NCCL 2.5 `Ring 00 : …
  via direct shared memory`, the SHM transport; NET lines carry
  `[send]`/`[receive]` and `via NET/IB/0/GDRDMA` or `via NET/Socket/3`), seen in NVIDIA/nccl
  issues #952, #429, #527.
- NCCL: "cuMem host allocations do not appear to be working; falling back to a /dev/shm/ based
  implementation. This could be due to the container runtime disabling NUMA support"
  (LlamaFactory#9506 log); "get_mempolicy: Operation not permitted" (vllm#24016).
- CUDA graphs: vLLM "Capturing CUDA graph shapes", "Capturing CUDA graphs (...)", "CUDA graphs can
  take additional 1~3 GiB memory per GPU", "Graph capturing finished in"; eager:
  `enforce_eager=True` in the engine config line. SGLang "Capture cuda graph begin/end";
  `disable_cuda_graph=True` in `server_args=ServerArgs(...)`. TensorRT-LLM's PyTorch backend "Run generation only CUDA
  graph warmup for batch size=170", one line per batch size it captures, largest first.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from stackaudit.facts._parse import LINE_LOOK_CHARS, RANK_DEVICE, ParseError
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.container_specs import ORIGIN_INSPECT_EXCERPT
from stackaudit.facts.docker import DockerContainers
from stackaudit.facts.model_placement import XINFERENCE_GPU_INDEX, listed_indices
from stackaudit.facts.processes import (
    RANK_LAUNCHERS,
    ProcessInfo,
    ServingProcesses,
    launcher_ranks,
    process_path,
)
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, first_of, parser, provider
from stackaudit.facts.sources import (
    ENGINE_LOG,
    EVIDENCE_LINES,
    NCCL_TESTS,
    NVSMI_TABLE,
    RAY_LOG,
    USER_NCCL_ENV,
)
from stackaudit.facts.symptoms import KERNEL_ARCH_REFUSED, NO_KERNEL_IMAGE
from stackaudit.facts.topology import link_rank
from stackaudit.host.base import NotCaptured, read_optional
from stackaudit.host.limits import load_json
from stackaudit.pci_address import from_nccl_bus_id
from stackaudit.versions import FIRST_RELEASE, is_older

# --- recognising log lines (shared with importers/logs.py) -----------------------------------

NCCL_LINE = re.compile(r"\bNCCL (?:INFO|WARN|TRACE)\b")
# NCCL before 2.3 printed its warnings without its name (debug.h WARN: `%s:%d:%d [%d] %s:%d WARN `, the source file and
# line before the level): `e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family
# not supported by protocol` (2.2, NVIDIA/nccl-tests#14, corpus 1555), `*server name* [0] include/socket.h:185 WARN Call
# to connect failed : Connection refused` (2.0, the host's name redacted: NVIDIA/nccl#111), or the message alone
# (`include/socket.h:344 WARN Socket creation failed`, NVIDIA/nccl#210). One of NCCL's own source files (its folders, a
# `.cu`/`.cc`/`.h`) before ` WARN `.
NCCL_OLD_WARN = re.compile(r"^\s*(?:[^\s\[\]][^\[\]]*? \[\d+\] )?(?P<warn>(?:(?:misc|include|transport|graph|collectives|proxy)/)?"
                           r"[a-z_]+\.(?:cu|cc|h):\d+ WARN \S)")


# NCCL's own lines of its ring, channel or tree set-up (`NCCL INFO Ring 00 : 0 1`, `NCCL INFO Channel 00/02 :    0   1`,
# `NCCL INFO Trees [0] 1/-1/-1->0->-1`): it prints them after it read its CUDA device's PCI bus id and built the topology.
# So is its rank's CPU affinity (`NCCL INFO Setting affinity for GPU 1 to fff000`, init.cc after ncclTopoGetCpuAffinity):
# the CPUs local to the GPU its topology placed by that bus id, after NVML opened the GPU (corpus 1801). So is its
# communicator's `Init START` line where it names the rank's NVML device (`ncclCommInitRank comm 0x.. rank 0 nranks 2
# cudaDev 0 nvmlDev 0 busId 48000 ... - Init START`, NCCL 2.12 on, corpus 1947; its `Init COMPLETE` is a CUDA proof
# of facts/cuda_ran.py): commAlloc read the rank's own bus id through CUDA and opened that GPU through NVML before it
# prints it. So is its P2P transport's refusal naming both devices by bus id (`NCCL INFO Could not enable P2P between dev
# 1(=1b000) and dev 0(=1a000)`, src/transport/p2p.cc p2pCanConnect): NCCL read both bus ids and CUDA answered its peer
# query for both devices; the refusal is of the path between them, not of the devices (corpus 2114).
# So is its topology search's warning that the GPU's sysfs path does not resolve (`NCCL WARN Could not find real path of
# /sys/class/pci_bus/0000:03/../../0000:03:00.0`, src/graph/xml.cc getPciPath, corpus 2385 under WSL 2, which gives
# Linux no PCI tree): the path is built from the bus id the rank read through CUDA (cudaDeviceGetPCIBusId, init.cc
# fillInfo) before the topology is detected; what fails is the platform's sysfs, not the device.
# It proves the rank's own GPU only: a rank whose NVML cannot open another GPU warns after it
# (`nvmlDeviceGetHandleByPciBusId() failed: Not Found`, NVIDIA/nccl#1529), and CTR-GPU-ACCESS then takes the worse line.
NCCL_RINGS = re.compile(r"\bNCCL INFO (?:Ring|Channel|Trees|Setting affinity for GPU \d\b"
                        r"|.*\bcudaDev \d+ nvmlDev \d+ busId [0-9a-fA-F]+\b.*- Init START"
                        r"|Could not enable P2P between dev \d+\(=[0-9a-fA-F]+\) and dev \d+\(=[0-9a-fA-F]+\))")
# The sysfs path warning as a rank tags it, its source file between the tag and `NCCL WARN` in NCCL 2.4 to 2.9
# (`ce1a35ee222c:687:748 [0] graph/xml.cc:332 NCCL WARN Could not find real path of ...`).
NCCL_GPU_PATH_WARN = re.compile(r"(?<![^\s:()\[\]])[^\s:()\[\]]+:\d+:\d+\s+\[\d+\]\s+(?:[\w./]+\.(?:cc|cu|h):\d+\s+)?NCCL WARN Could not find "
                                r"real path of /sys/class/pci_bus/[0-9a-fA-F]{4}:[0-9a-fA-F]{2}/\.\./\.\./[0-9a-fA-F]{4}:"
                                r"[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\b")


def is_nccl_line(line: str) -> bool:
    """A line NCCL printed: `NCCL INFO|WARN|TRACE` (2.3 and later) or a warning of the older form (NCCL_OLD_WARN)."""
    return bool(NCCL_LINE.search(line) or (" WARN " in line and NCCL_OLD_WARN.match(line)))


def nccl_warning_at(line: str) -> int:
    """Where NCCL's warning starts in a line (`NCCL WARN`, or the older form's source file), -1 where it holds none."""
    if "NCCL WARN" in line:
        return line.index("NCCL WARN")
    m = NCCL_OLD_WARN.match(line) if " WARN " in line else None
    return m.start("warn") if m else -1


def is_nccl_warning(line: str) -> bool:
    """A warning NCCL printed: `NCCL WARN`, or a warning of the older form without its name (NCCL_OLD_WARN)."""
    return "NCCL WARN" in line or (" WARN " in line and NCCL_OLD_WARN.match(line) is not None)
# NCCL's banner without a prefix, as rank 0 prints it (init.cc showVersion): `NCCL version 2.21.5+cuda11.8`; and the
# driver's CUDA version NCCL reports at init (`cudaDriverVersion 12080`), pasted without its prefix above the banner
# (nccl-tests#289, corpus 967).
NCCL_BANNER = re.compile(r"^\s*(?:NCCL version \d+\.\d+\.\d+\+cuda\d+\.\d+|cudaDriverVersion \d{4,6})\s*$")
# A worker's line under its engine core's (vLLM 0.10 and later: `(EngineCore_DP0 pid=200073) (Worker_PP3 pid=200085)
# ERROR 10-17 02:19:27 [multiproc_executor.py:654] ...`, vllm#27067) carries both processes' tags.
# A paste may cut the first tag before its `(` (`VllmWorkerProcess pid=214) ERROR 09-27 ...`, corpus 2007).
_VLLM_TAG = r"(?:[\w:]+(?: (?:TP|DP|PP|EP)\d+(?:_(?:TP|DP|PP|EP)\d+)*)?(?: rank=\d+)?(?: pid=\d+)?|pid=\d+)\)\s+"
_VLLM_STAMP = r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?"
VLLM_LINE = re.compile(rf"^(?:\s*\(?{_VLLM_TAG})?(?:\s*\({_VLLM_TAG})?{_VLLM_STAMP}\s+\[?[\w./-]+\.py:\d+\]?")
# A worker's line cut after its timestamp (`(VllmWorker rank=0 pid=401) INFO 07-29 11:31:40`, corpus 2056): its tag
# with a pid and its level and time are vLLM's form, with no message.
VLLM_CUT_LINE = re.compile(rf"^\s*\([\w:]+(?: [\w=]+)*? pid=\d+\)\s+{_VLLM_STAMP}\s*$")
# vLLM's API server (vLLM 0.10 and later put its process before every line: `(APIServer pid=1) `) runs uvicorn, whose own
# lines (`INFO:     Started server process [1]`, `INFO:     Application startup complete.`, its access log) have no
# vLLM format: behind that tag they are the same server's log (corpus 1396, 510, 1395). The paste view keeps the tag
# on such a line (importers/_paste.py); a uvicorn line without it may be any Python web server's.
VLLM_API_PROCESS = re.compile(r"^APIServer(?:_\d+)? pid=\d+$")
UVICORN_LINE = re.compile(r"^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE):\s+\S")
VLLM_UVICORN_LINE = re.compile(r"^\(APIServer(?:_\d+)? pid=\d+\) (?:INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE):\s+\S")
# SGLang's prefix: `[2025-01-02 03:04:05 TP0] ` (its datefmt since late 2024) or `[04:40:55 TP0] ` (2024: the time
# only, where the rank tag marks it as SGLang's). NCCL's own lines carry the dated prefix too (NCCL_DEBUG's timestamp,
# `[2025-05-10 23:09:41] host:pid:tid [2] transport/nvls.cc:254 NCCL WARN ...`, corpus 1360, 378, 969): a prefix
# followed by NCCL's `host:pid:tid [device] ` is NCCL's, not SGLang's, whatever program (nccl-tests, vLLM) runs it;
# one followed by a lowercase level in brackets is electron-log's (`[2025-09-03 12:24:40.689] [info]  App starting...`,
# the default format of an Electron app's log such as LM Studio's: lmstudio-ai/lmstudio-bug-tracker#966, #2190).
# One followed by `Executing: ` is an installer script's echo of the command it runs (Google's GPU driver installer,
# `[2022-05-05 12:35:02] Executing: lspci -n`, corpus 2090), not SGLang's.
# A paste whose writer cut the time off keeps the rank tag alone (`[TP0] Scheduler hit an exception:`, corpus 1839;
# `[TP0] Capture draft extend cuda graph begin`, sgl-project/sglang#24481): the tag marks the line as SGLang's.
# A build that runs disaggregated tags its ranks with the mode first (`[2025-12-02 07:04:51 DisaggregationMode.IGPUDECODE
# TP1] Allocating 40.00 GB host memory for hierarchical KV cache.`, sgl-project/sglang#14282, corpus 2723): the same prefix.
SGLANG_LINE = re.compile(r"^\s*\[(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[,.]\d+)?(?: DisaggregationMode\.[A-Z_]{1,20})?"
                         r"(?: (?:TP|DP|EP|PP|CP)\d+)*"
                         r"|\d\d:\d\d:\d\d(?: (?:TP|DP|EP|PP|CP)\d+)+|(?:TP|DP|EP|PP|CP)\d+(?: (?:TP|DP|EP|PP|CP)\d+)*)\] "
                         r"(?!\S+:\d+:\d+ \[\d+\] |\[(?:info|warn|error|debug|verbose|silly)\]\s|Executing: )")
# MLC LLM's Python log format (python/mlc_llm/support/logging.py: `[{asctime}] {levelname} {filename}:{lineno}:
# {message}`, `[2024-06-03 08:28:24] INFO auto_device.py:79: Found device: cuda:0`, mlc-ai/mlc-llm#2492, #3016, #3214):
# SGLang's dated prefix, then a level and a file name; and its C++ runtime's lines, which name its source tree
# (`[08:28:29] /workspace/mlc-llm/cpp/serve/config.cc:646: ...`). The engine is MLC LLM's, not SGLang's.
MLC_LINE = re.compile(r"^\s*\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \w+\.py:\d+: "
                      r"|/mlc-llm/cpp/|\bmlc_llm\b")
# SGLang's own lines in the datefmt its releases print since late 2024 (after sgl-project/sglang#612, July 2024, which
# turned CUDA graphs on by default): the dated prefix with a rank tag, or before SGLang's own words (the date alone is
# other launchers' format too, corpus 903). A line of that form shows the release captures graphs by default where
# no version is pasted (corpus 681, 988).
SGLANG_DATED_LINE = re.compile(r"^\s*\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[,.]\d+)?(?:(?: DisaggregationMode\.[A-Z_]{1,20})?"
                               r"(?: (?:TP|DP|EP|PP|CP)\d+)+\] "
                               r"|\] (?:server_args=ServerArgs\(|(?:Prefill|Decode) batch[.,] #))")
# The engine's word that it turned its custom all-reduce off, and why (_AR_REASONS): vLLM's and SGLang's `Custom allreduce
# is disabled because ...` (custom_all_reduce.py), SGLang's later `CustomAllreduce is disabled ...` and
# `CustomAllReduceV2 is disabled ...` (sgl-project/sglang#29562, 2026); not ROCm's `Custom quick allreduce is disabled`,
# another kernel.
CUSTOM_AR_DISABLED = re.compile(r"Custom ?allreduce(?:V2)? is disabled", re.IGNORECASE)
# The libraries whose frames in a crashed rank's backtrace are the GPU stack's: NCCL, TensorRT, TensorRT-LLM's runtime
# and plugins (their file names, `lib<name>.so`).
BACKTRACE_GPU_LIBS = ("libnccl", "libnvinfer", "libnvinfer_plugin_tensorrt_llm", "libtensorrt_llm", "libth_common")
# A traceback frame in custom_all_reduce.py's steps that share its buffers between the ranks over CUDA IPC (vLLM's and
# SGLang's register_graph_buffers at the end of CUDA graph capture, register_buffer, _get_ipc_meta, _gather_ipc_meta):
# a traceback passes through them only where that sharing failed (`File ".../custom_all_reduce.py", line 307, in
# register_graph_buffers`, sgl-project/sglang#9706, corpus 2451).
_AR_FRAME = re.compile(r"custom_all_reduce\.py\", line \d+, in (?:register_graph_buffers|register_buffer|_gather_ipc_meta|"
                       r"_get_ipc_meta)\b")
KEY_PHRASES = re.compile(
    r"Custom ?allreduce(?:V2)? is disabled|GPU P2P access cache|Capturing CUDA graph|CUDA graphs can take additional|"
    r"Graph capturing finished|Capture cuda graph|CUDA graph warmup for batch size=|cuMem host allocations do not appear|"
    r"get_mempolicy: Operation not "
    r"permitted|vLLM is using nccl==|P2P is not supported|peer access is not supported|P2P is disabled between "
    r"NVLINK|Initializing an? (?:V[01] )?LLM engine|server_args=ServerArgs\(|non-default args:|"
    r"\buse_cached_outputs=(?:True|False)\b|"  # the tail of vLLM V0's engine-config line, cut from its head (corpus 2240)
    r"enforce_eager|Capturing batches \(|Detected that the model can run with \w+_marlin|"
    r"does not have native support for FP\d computation|attention backend out of potential backends|"
    r"Setting OMP_NUM_THREADS environment variable for each process|Watchdog caught collective operation timeout|"
    # torch's ProcessGroupNCCL (the NCCL process group of torch.distributed, under every engine's tensor parallelism)
    # behind c10's log prefix: `[rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] [PG ID 2 ...] Exception
    # (either an error or timeout) detected by watchdog at work: 32` (sgl-project/sglang#3932, corpus 1099).
    r"\[[EWIF](?:\d{3,4} [\d:.]+)? ProcessGroupNCCL\.cpp:\d+\]|"
    # The same process group's error as torch raises it, NCCL's result under it: `torch.distributed.DistBackendError:
    # NCCL error in: .../NCCLUtils.cpp:93, unhandled cuda error (...), NCCL version 2.29.3` over `ncclUnhandledCudaError:
    # Call to CUDA function failed.` (ncclGetErrorString's words), often pasted with no NCCL INFO line (corpus 2318,
    # 1599, 1081: NCCL's `Last error:` after it is the WARN it printed).
    r"\bNCCL error in: \S+:\d+, |^\W*(?:\[rank\d+\]:\s*)?nccl(?:UnhandledCuda|System|Internal|InvalidArgument|InvalidUsage|"
    r"Remote)Error: |"
    r"Decode batch[.,] #running-req:|Prefill batch[.,] #new-seq:|"  # SGLang's stats lines, with no prefix pasted
    r"Avg prompt throughput: [\d.]+ tokens/s|"  # vLLM's (and its forks') metrics line, with no prefix pasted
    r"on startup is less than desired GPU memory utilization|"  # vLLM's refusal to start, often pasted bare
    # its head alone, where a paste wraps the message after `less than` (corpus 2754): vLLM's free/total reading
    r"\bFree memory on device (?:[\w:]+ )?\([\d.]+/[\d.]+ GiB\) on startup is less than\s*$|"
    # vLLM's assertion when the free memory moved while it profiled (vllm/worker: `Error in memory profiling. Initial
    # free memory 23.4375 GiB, current free memory ...`, 0.6-0.9; `... This happens when the GPU memory was not
    # properly cleaned up`, before), pasted bare (corpus 2736)
    r"(?-i:\bError in memory profiling\. (?:Initial free memory\b|This happens when))|"
    r"custom_all_reduce\.cuh?:\d+|Registering \d+ cuda graph addresses|"  # custom all-reduce's CUDA error, its set-up
    # A traceback frame in the step that shares custom all-reduce's buffers between ranks (_AR_FRAME), often the one
    # line a paste keeps of the traceback (corpus 2451).
    + _AR_FRAME.pattern + "|"
    # FastChat's vLLM worker (fastchat/serve/vllm_worker.py, 2023) logs vLLM's AsyncEngineArgs one a line:
    # `2023-08-01 00:41:32 | INFO | __main__ | engine_args.tensor_parallel_size: 4`.
    r"\bengine_args\.\w+: |"
    r"\btorchrun(?:\s+--?\w[\w-]*(?:[= ][^\s-]\S*)?)*\s+\S+\.py\b|"  # one parse per flag: linear
    # A frame of Open MPI's backtrace of a crashed rank (opal_backtrace: `[HOST:PID] [ 1] PATH(+0x878e7)[0x7f03...]`)
    # inside NCCL's, TensorRT's or TensorRT-LLM's library (BACKTRACE_GPU_LIBS): a rank dying there, often pasted with
    # no log line around it (TensorRT-LLM#963, corpus 1624: libnccl; TensorRT-LLM#395: libnvinfer); a frame of any
    # other library (libc, python) stays unread.
    r"^\s*\[[\w.-]+:\d+\] \[\s*\d+\] \S*/(?:" + "|".join(BACKTRACE_GPU_LIBS) + r")\.so[.\d]*\(|"
    # The same libraries' frames in the stack TensorRT-LLM's exception prints (`2       0x7fb4aebbf999 /usr/local/lib/
    # python3.10/dist-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x728999) [0x7fb4aebbf999]`, `4       0x7fb4614edcec
    # tensorrt_llm::plugins::AllreducePlugin::initialize() + 204`, TensorRT-LLM#1826).
    r"^\s*\d+\s+0x[0-9a-f]{6,16} (?:tensorrt_llm::|\S*/(?:" + "|".join(BACKTRACE_GPU_LIBS) + r")\.so[.\d]*\()|"
    # A kernel the GPU has no code for, or a kernel library refusing its architecture: an engine's start failing,
    # often pasted with no engine line around it (facts/symptoms.py).
    rf"{NO_KERNEL_IMAGE.pattern}|{KERNEL_ARCH_REFUSED.pattern}",
    re.IGNORECASE)
# llama.cpp's own log lines, by the function that prints them (ollama's runner prints the same, behind its journal
# prefix): its timings (llama-cli's `llama_perf_context_print:`, ggml-org/llama.cpp#34; `llama_print_timings:` before
# it, ggml-org/llama.cpp#2237; the old server's `print_timings:`; llama-server's bare `prompt eval time =` / `eval
# time =` lines under `slot print_timing:`, ggml-org/llama.cpp#9013; a bare `total time =` is any program's), its
# loader (`llm_load_tensors:` / `load_tensors:`, `llm_load_print_meta:`, `llama_model_loader:`) and its context set-up
# (`llama_new_context_with_model:` / `llama_context:`, `llama_kv_cache_init:`), the device it loads the model on
# (`llama_load_model_from_file:`, `llama_model_load_from_file_impl:` from 2025, `llama_prepare_model_devices:` from
# 2026, each `using device CUDA0 (NAME) - 7839 MiB free`, GGML_USING_DEVICE; `ggml_cuda_set_main_device:` in 2023,
# GGML_MAIN_DEVICE) and its build's features (`system_info:
# ... | CUDA : ARCHS = 750,800,860 | ...`, GGML_CUDA_ARCHS). Builds since 2025 may put the time since start and a
# level letter before the function (`0.00.082.906 I system_info: ...`, common/log.cpp with timestamps and prefix on,
# as ollama's llama-server runs it), and llama-server's `--list-devices` list (GGML_LIST_DEVICE); the ggml era's loader
# opened its file with `llama.cpp: loading model from <path>` (llama_model_loader, 2023; corpus 2048, 2122). A line of these shows llama.cpp ran (ServingLog.engine "llamacpp").
# llama.cpp's build banner (common/common.cpp, cmake/build-info.cmake): a run logs `build: 4273 (abc1234) with cc (...)
# for x86_64-linux-gnu` at its start (`main: build = 992 (0919a0f)` over `main: built with cc ... for ...` before
# late 2024, print_build_info), and `--version` prints `version: 7018 (ece0f5c17)` over `built with <compiler> for
# <target>` (`version: b4819` or `b9568 (unknown)` for a build outside git). The number is llama.cpp's release (tag
# b7018). The `built with ... for ...` line and the one-line `build:` form are llama.cpp's own; the bare `version:`
# line above `built with` is read with it (GGML_VERSION), never alone.
_GGML_BUILT_WITH = r"(?:\w+: )?built with \S.* for \S+(?: \S+)?\s*$"
GGML_BUILD_INFO = (_GGML_BUILT_WITH + r"|build: \d+ \((?:[0-9a-f]{6,}|unknown)\) with \S.* for \S+(?: \S+)?\s*$"
                   r"|\w+: build = \d+ \((?:[0-9a-f]{6,}|unknown)\)\s*$")
GGML_VERSION = re.compile(r"^\s*version: b?(\d+)(?: \((?:[0-9a-f]{6,}|unknown)\))?\s*$")
GGML_BUILT_WITH = re.compile(r"^\s*" + _GGML_BUILT_WITH)
# A banner line states the build, not a run: it names no engine of the log (ServingLog.engine), only its release.
GGML_BANNER = re.compile(r"^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?(?:" + GGML_BUILD_INFO + ")")
_GGML_RELEASE = re.compile(r"^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?(?:build: (\d+) \(|\w+: build = (\d+) \()")
# llama.cpp's warning where `--mlock` (or ollama's use_mlock) could not lock the model's buffer in RAM (llama_mlock,
# src/llama-mmap.cpp): `warning: failed to mlock 90112000-byte buffer (after previously locking 0 bytes): Cannot
# allocate memory` (corpus 2023). The process's RLIMIT_MEMLOCK is below the two sizes together.
GGML_MLOCK_FAILED = re.compile(r"warning: failed to mlock (?P<size>\d+)-byte buffer \(after previously locking "
                               r"(?P<locked>\d+) bytes\)")
GGML_LOG_LINE = re.compile(
    r"^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?(?:(?:llama_print_timings|llama_perf_context_print|llama_perf_sampler_print|print_timings|llm_load_tensors"
    r"|load_tensors|llm_load_print_meta|llama_model_loader|llama_model_load_internal|llama_new_context_with_model|llama_context"
    r"|llama_load_model_from_file|llama_model_load_from_file_impl|llama_prepare_model_devices|system_info"
    r"|llama_kv_cache_init|llama_kv_cache_unified|ggml_cuda_set_main_device|llama_memory_breakdown_print):\s"
    r"|slot print_timing:|(?:prompt eval|eval) time =\s+[\d.]+ ms /|warning: failed to mlock \d+-byte buffer"
    r"|llama\.cpp: loading model from \S"
    # llama.cpp's rpc-server (tools/rpc/rpc-server.cpp): `create_backend: using CUDA backend`, then `Starting RPC server
    # on 0.0.0.0:50052, backend memory: 7686 MB` (ggml-org/llama.cpp#9214, corpus 2826), `Starting RPC server v2.0.0`
    r"|create_backend: using \w+ backend\s*$|Starting RPC server (?:on \S+|v\d+\.\d+\.\d+)"
    r"|\s*- (?:CUDA|ROCm|Vulkan|Metal|SYCL)\d*\s*: [^()\n]+ \(\d+ MiB, \d+ MiB free\)\s*$"
    r"|\s*(?:CUDA|ROCm|Vulkan|Metal|SYCL)\d+: [^()\n]+ \(\d+ MiB, \d+ MiB free\)\s*$"
    r"|" + GGML_BUILD_INFO + ")"
    # Its build's features before late 2024 as llama-cpp-python prints them, without the `system_info:` head
    # (llama_print_system_info, llama.cpp's key order: `AVX = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VBMI = 0 | ...`,
    # corpus 2918); whisper.cpp's list has no AVX512_VBMI key, KoboldCpp heads its own with `System Info:`.
    r"|\s*AVX = [01] \| (?:AVX_VNNI = [01] \| )?AVX2 = [01] \| AVX512 = [01] \| AVX512_VBMI = [01] \|")
# llama.cpp's build features of its old `system_info` form (before the per-backend form of late 2024, `CUDA : ARCHS =
# ... | CPU : ...`): `BLAS = 1` for a build with any BLAS or GPU backend (ggml.c ggml_cpu_has_blas: Accelerate,
# OpenBLAS, cuBLAS / CUDA, CLBlast, Vulkan, SYCL; corpus 1892, b3985 with CUDA), `BLAS = 0` for a build with none
# (abetlen/llama-cpp-python#300, #509; ggml-org/llama.cpp#1076; corpus 2918). Such a build runs every layer on the CPU,
# whatever `--n-gpu-layers` asks. A list that names a GPU backend of its own (`CUDA = 1`, `CUBLAS = 1`, `METAL = 1`,
# another program's) is not this form.
GGML_NO_GPU_BACKEND = re.compile(r"(?:^|\bsystem_info: n_threads = [^|\n]{1,60}\| )\s*AVX = [01] \| "
                                 r"(?:[A-Z0-9_]+ = [01] \| ){2,20}?BLAS = 0 \|")
_GGML_GPU_KEY = re.compile(r"\b(?:CUDA|CUBLAS|METAL|VULKAN|SYCL|CLBLAST|HIPBLAS|KOMPUTE) = 1\b|\bCUDA : ")
# ollama's own log lines (Go's log/slog text handler, ollama's logutil): `time=2024-08-12T20:24:12.346-06:00
# level=INFO source=memory.go:309 msg="offload to cuda" ...`, behind a journal tag (`ollama[1773]: `) or none (its
# Windows server.log). A line of these shows ollama ran (ServingLog.engine "ollama"). Its GPU discovery lines
# (`msg="inference compute"`, OLLAMA_DISCOVERY) stay the evidence reader's (importers/evidence.py).
# Releases of January 2024 (0.1.21, 0.1.22) name the source by its build path (`source=/go/src/github.com/jmorganca/
# ollama/gpu/gpu.go:91`, ollama/ollama#1939).
OLLAMA_LINE = re.compile(r"\btime=\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d) level=[A-Z]+ "
                         r"source=(?:[\w.-]*/)*[\w.-]+\.go:\d+ msg=")
# ollama's lines in Go's standard `log` format with the file name (log.Lshortfile), as releases before slog (0.1.x to
# 0.1.22) wrote every line and later ones still write their `routes.go:1187: INFO server config` line: `2024/01/13
# 16:01:14 gpu.go:94: Nvidia GPU detected` (ollama/ollama#1973, corpus 1676), `shim_ext_server.go:142: Dynamic LLM
# variants [cuda rocm]`, `llama.go:292: 39320 MB VRAM available` (#1465, corpus 1573). Go's format is any Go
# program's: the line is ollama's by the source file, one of ollama's own (server/, gpu/, llm/ of those releases).
OLLAMA_GO_FILES = ("routes", "images", "gpu", "cpu_common", "llm", "llama", "shim_ext_server", "shim_ext_server_linux",
                   "ext_server_common", "ext_server_default", "dyn_ext_server", "payload_common", "payload_linux",
                   "download", "upload", "amd_linux", "gpu_info_cuda", "gpu_info_rocm")
# ollama of 2023 (0.1.x, llm/llama.go NumGPU): the free memory `nvidia-smi --query-gpu=memory.free` gives, summed over
# every GPU, before it starts a runner: `llama.go:292: 39320 MB VRAM available, loading up to 101 GPU layers` (MiB;
# later 0.1 releases add the driver and the model's layers: `... loading up to 26 cuda GPU layers out of 33`). The line
# stays the evidence reader's (facts/gpus.py reads it), as OLLAMA_DISCOVERY's do.
OLLAMA_POOLED_VRAM = re.compile(r"\b(?P<free>\d+) MB VRAM available, loading up to \d+ (?:\w+ )?GPU layers\b")
OLLAMA_GO_LINE = re.compile(r"(?:^|\s)\d{4}/\d\d/\d\d \d\d:\d\d:\d\d (?:" + "|".join(OLLAMA_GO_FILES)
                            + r")\.go:\d+: \S")
# An ollama line the user cut to its message and fields (`msg="skipping available library at users request"
# requested=cuda libDir=/usr/lib/ollama/cuda_v12`, ollama#12797, corpus 1309): slog's logfmt from `msg=` on, read as
# ollama's only where a field names ollama's own path or program (Go's slog prints the same form for any program).
OLLAMA_CUT_LINE = re.compile(r'^\s*msg=(?:"[^"]*"|\S+)(?:\s+[\w.]+=(?:"[^"]*"|\S*))*\s*$')


def is_ollama_cut_line(line: str) -> bool:
    """Whether a line is an ollama log line cut to its `msg=` and fields (OLLAMA_CUT_LINE)."""
    return "ollama" in line and line.lstrip().startswith("msg=") and OLLAMA_CUT_LINE.match(line) is not None
# Triton Inference Server's own lines, in glog's format (`I0327 13:12:22.342290 146 grpc_server.cc:2558] "Started
# GRPCInferenceService at 0.0.0.0:8001"`, tensorrtllm_backend#149, corpus 1471; 20.03's trtserver without the quotes,
# `I0528 11:19:45.103087 18 metrics.cc:164] found 8 GPUs supporting NVML metrics`, server#1567, corpus 1493), told by
# the source files of its core, front ends and backends that print them: glog's format alone is any C++ program's.
TRITON_FILES = ("server", "grpc_server", "http_server", "metrics", "model_lifecycle", "model_repository_manager",
                "backend_model", "backend_model_instance", "backend_manager", "pinned_memory_manager",
                "cuda_memory_manager", "model_config_utils", "tritonserver", "python_be", "pb_stub", "libtensorrtllm",
                "model_instance_state", "model_state", "shared_library", "dynamic_batch_scheduler",
                "sequence_batch_scheduler", "cache_manager", "autofill", "netdef_backend", "plan_backend",
                "onnxruntime", "libtorch", "infer_request", "rate_limiter", "main")
TRITON_LINE = re.compile(r"^\s*[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ (?P<file>" + "|".join(TRITON_FILES)
                         + r")\.cc:\d+\] ")
# TensorRT-LLM's C++ runtime behind its logger's tag (`[TensorRT-LLM][INFO] Loaded engine size: 8745 MiB`,
# `[TensorRT-LLM][ERROR] Failed, NCCL error ...`), as Triton's tensorrtllm backend and the runtime's own programs print
# it (tensorrt_llm/common/logger.h); the Python package's import banner `[TensorRT-LLM] TensorRT-LLM version: 0.16.0`
# stays the version readers' (facts/python_env.STATED_VERSION).
# The runtime's exception carries the same tag behind std::terminate's `what():` (`terminate called after throwing an
# instance of 'tensorrt_llm::common::TllmException'` / `  what():  [TensorRT-LLM][ERROR] Assertion failed: ...`,
# TensorRT-LLM#1826).
TRTLLM_LINE = re.compile(r"^\s*(?:what\(\):\s+)?\[TensorRT-LLM\]\[(?:INFO|WARNING|ERROR|DEBUG|VERBOSE|TRACE)\] ")
# The messages of ollama's GPU discovery (and its debug log's reading of each GPU's memory); the evidence reader
# takes the lines that carry them.
OLLAMA_DISCOVERY_MSGS = (r'inference compute"|looking for compatible GPUs|no compatible GPUs were discovered|'
                         r'Dynamic LLM libraries \[|updating cuda memory data" gpu=')
OLLAMA_DISCOVERY = re.compile(rf'msg="?(?:{OLLAMA_DISCOVERY_MSGS}|detected GPUs")')
# ollama's placement (llm/memory.go, `msg="offload to cuda"` or `msg=offload library=cuda`): the layers it put on
# the GPUs of the model's layers, `layers.model=33 layers.offload=12`.
OLLAMA_OFFLOAD = re.compile(r"\blayers\.model=(\d+) layers\.offload=(\d+)\b")
# ollama's scheduler weighing a model against a GPU's free memory (server/sched.go: `msg="new model will fit in
# available VRAM in single GPU, loading" ... available=16139026432 required="11.3 GiB"`, bytes then its format_bytes;
# llm/memory.go: `memory.available="[2.2 GiB]" memory.required.full="4.8 GiB"`, read where it names one GPU; releases
# from 0.4 print `memory.gpu_overhead="0 B"` between the two, corpus 1497).
OLLAMA_FIT = re.compile(r'\bavailable=(?P<bytes>\d+) required="(?P<req>[\d.]+) (?P<ru>[MG]iB)"'
                        r'|\bmemory\.available="\[(?P<free>[\d.]+) (?P<fu>[MG]iB)\]"(?: [\w.]+="[^"]*")*? '
                        r'memory\.required\.full="(?P<full>[\d.]+) (?P<su>[MG]iB)"')
# Lines only an engine's native Windows build logs: ollama's from its Windows-only sources (discover/gpu_windows.go,
# amd_windows.go; corpus 1476: `source=gpu_windows.go:167 msg=packages count=1`), and llama.cpp's build line of a
# Windows binary: built by Microsoft's compiler (`build: 0 (unknown) with MSVC 19.44.35207.1 for x64`, corpus 1825),
# or for a Windows target (`with clang version 21.0.0git (...) for x86_64-pc-windows-msvc`). ollama's `msg="detected OS
# VRAM overhead"` (discover/gpu.go) compares NVML's free memory with CUDA's, and ollama loads NVML on Windows only
# (nvml.dll; corpus 2074, ollama PR #10569).
OLLAMA_WINDOWS = re.compile(r"\bsource=\w+_windows\.go:\d+ msg=|^(?:\S+ )?build: \d+ \([^)]*\) with "
                            r"(?:MSVC [\d.]+ for\b|.*\bfor \w+-pc-windows-msvc\b)"
                            r'|\bmsg="detected OS VRAM overhead"')
# ollama's placement of a model on the GPUs of one library (llm/memory.go, MemoryEstimate.log: `msg="offload to cuda"`,
# `msg=offload library=cuda`): `memory.available` lists the free memory of each GPU the runner is given, one entry per
# GPU (`memory.available="[21.6 GiB]"`, `"[23.4 GiB 23.5 GiB]"`), and `layers.split` is the split over them, empty for
# one GPU (https://github.com/ollama/ollama/blob/main/llm/memory.go: availableList, TensorSplit set only where
# len(gpus) > 1). The CPU library's line lists system memory and is not read.
# slog quotes a value only where it must: `layers.split=""` for one GPU, `layers.split=11,11,11,11` for four.
OLLAMA_PLACED = re.compile(r'\bmsg="?offload(?: to (?P<to>\w+)"| library=(?P<lib>\w+))'
                           r'.*?\blayers\.split=(?:"(?P<split>[^"]*)"|(?P<bare>[\d,]*))'
                           r'.*?\bmemory\.available="\[(?P<avail>[^\]]*)\]"')
_OLLAMA_FREE = re.compile(r"[\d.]+ ?[KMGT]?i?B\b")
# The line's literals, one of which every GGML_LOG_LINE match holds.
GGML_NEEDLES = ("llama_", "llm_load", "load_tensors:", "print_timing", "eval time =", "system_info:", "MiB free)",
                "built with ", "build: ", "build = ", "ggml_cuda_set_main_device:", "failed to mlock",
                "llama.cpp: loading", "create_backend:", "Starting RPC server", "AVX512_VBMI = ")
# `load_tensors: offloaded 5/37 layers to GPU` (llm_load_tensors before 2025): the layers llama.cpp put on the GPUs.
GGML_OFFLOADED = re.compile(r"\boffloaded (\d+)/(\d+) layers to GPU\b")
# llama.cpp's count of the GPU memory its weights took (`llm_load_tensors: VRAM used: 0.00 MB`, builds of late 2023;
# `total VRAM used: 0 MB`): none, the model holds no GPU memory.
GGML_NO_VRAM = re.compile(r"\bVRAM used: 0(?:\.0+)? MB\b")
# `load_tensors:        CUDA0 model buffer size =   511.43 MiB` (`llm_load_tensors:      CUDA0 buffer size`, `llama_kv_cache_init:
# CUDA0 KV buffer size`, `CUDA0 compute buffer size`): memory llama.cpp's CUDA backend allocated on a CUDA device. Its
# row split puts a part of each matrix on every device (`CUDA3_Split model buffer size =   536.67 MiB`, corpus 1843).
GGML_CUDA_BUFFER = re.compile(r"\b(CUDA\d+)(?:_Split)?(?: model| KV| compute)? buffer size =\s*[\d.]+ MiB")
# The same block of `load_tensors:` (`llm_load_tensors:` before 2025) names each buffer the weights were loaded into,
# one line each, one after another (llama-model.cpp: `for (auto & buf : pimpl->bufs)`): the host's (`CPU`,
# `CPU_Mapped`, `CUDA_Host`, `CPU_REPACK`, `AMX`) and each device's (`CUDA0`, `CUDA1_Split`, `ROCm0`, `Vulkan0`,
# `RPC[host:port]`).
GGML_MODEL_BUFFER = re.compile(r"\b(?:llm_)?load_tensors:\s+(\S+?)(?:_Split)? (?:model )?buffer size =\s*[\d.]+ MiB")
_GGML_HOST_BUFFERS = ("CPU", "CUDA_Host", "AMX")


def ggml_one_gpu_buffers(lines: list[str]) -> str:
    """The line of the one device of llama.cpp's model-buffer block where that device is a CUDA GPU; "" otherwise.

    A block is a run of GGML_MODEL_BUFFER lines. It counts only where a line follows it, since a paste cut inside
    the block may leave out the other devices' lines. Every block of the log names the same one CUDA device and no other
    device, or none counts. The model's weights then sit on that one GPU and the host (corpus 2170)."""
    found: set[str] = set()
    line_of = ""
    i = 0
    while i < len(lines):
        if not GGML_MODEL_BUFFER.search(lines[i]):
            i += 1
            continue
        start = i
        while i < len(lines) and (m := GGML_MODEL_BUFFER.search(lines[i])):
            name = m.group(1)
            if not name.startswith(_GGML_HOST_BUFFERS):
                found.add(name)
                line_of = line_of or lines[i].strip()
            i += 1
        if i == len(lines) or i == start:
            return ""  # the paste ends inside the block
    return line_of if len(found) == 1 and re.fullmatch(r"CUDA\d+", next(iter(found))) else ""
# The compute capabilities a llama.cpp (ggml) CUDA build carries code for, as its `system_info` line prints them
# (ggml-cuda.cu: `__CUDA_ARCH_LIST__`, real and virtual alike): `CUDA : ARCHS = 750,800,860,890,900,1000,1200`, in
# llama.cpp's own `system_info:` line and in a program's report of it (node-llama-cpp's systemInfo); ollama's runner
# prints the same features one key each, `msg=system ... CUDA.0.ARCHS=500,600,610,...` (ollama/ollama#11983).
GGML_CUDA_ARCHS = re.compile(r"\bCUDA(?: : |\.\d+\.)ARCHS ?= ?(\d+(?:,\d+)*)")
# Whether the same build runs its CUDA graphs (GGML_CUDA_GRAPHS at build time, ggml-cuda.cu's USE_CUDA_GRAPH): the
# feature `USE_GRAPHS = 1` of llama.cpp's `system_info:` line (`CUDA : ARCHS = ... | USE_GRAPHS = 1 |`), one key per
# device in ollama's (`CUDA.0.USE_GRAPHS=1`). The feature appears only where the build has it: `0` is a build without.
GGML_USE_GRAPHS = re.compile(r"(?:\bCUDA\.(\d+)\.|\| )USE_GRAPHS ?= ?([01])\b")
# The same line's thread counts and the CPUs llama.cpp counts (common.cpp common_params_get_system_info:
# `system_info: n_threads = 64 (n_threads_batch = 64) / 24 | ...`, the last std::thread::hardware_concurrency()),
# and whether the build runs its thread pool on OpenMP (`| OPENMP = 1 |`, GGML_OPENMP: ggml-cpu.c then starts its
# graph's threads with `#pragma omp parallel num_threads(n_threads)`).
GGML_THREADS = re.compile(r"\bsystem_info: n_threads = (\d+) \(n_threads_batch = (\d+)\) / (\d+) \|")
GGML_OPENMP = re.compile(r"\| OPENMP = ([01]) \|")
# The device llama.cpp loads the model on, with the memory CUDA found free on it (cudaMemGetInfo) before loading:
# `llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) (0000:01:00.0) - 23641 MiB free`
# (the PCI address from 2025, `(unknown id)` where there is none; ggml-org/llama.cpp src/llama.cpp).
# Each device of llama.cpp's `device_info:` list, with the total and free memory its backend read of it
# (ggml_backend_dev_memory: cudaMemGetInfo on a CUDA device, so the CUDA runtime ran on the driver), as common.cpp's
# `LOG_INFO("  - %-8s: %s (%zu MiB, %zu MiB free)\n", ...)` prints it: `0.00.436.742 I   - CUDA0   : NVIDIA GeForce
# RTX 5070 Ti (15838 MiB, 58499 MiB free)` (ggml-org/llama.cpp common/common.cpp, common_params_print_info;
# ggml-org/llama.cpp#24147).
GGML_DEVICE_INFO = re.compile(r"^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?\s*- (CUDA\d+)\s*: (?P<name>[^()]+?) \(\d+ MiB, \d+ MiB free\)")
# The same list's rows of a device another ggml backend drives (`0.00.663.544 I   - Vulkan0 : NVIDIA GeForce RTX 5060
# (7895 MiB, 7127 MiB free)`, ggml-org/llama-install.sh#20, corpus 1985): Vulkan, Metal, SYCL and OpenCL reach the GPU
# through their own runtimes, not CUDA's.
GGML_OTHER_DEVICE_INFO = re.compile(r"^\s*(?:\d+\.\d\d\.\d{3}\.\d{3} [DIWE] )?\s*- ((?:Vulkan|SYCL|OpenCL)\d+|Metal)\s*: "
                                    r"[^()]+? \(\d+ MiB, \d+ MiB free\)")
# llama-server's `--list-devices` (ggml-org/llama.cpp common/arg.cpp: `printf("  %s: %s (%zu MiB, %zu MiB free)\n",
# ...)` under `Available devices:`), the same total and free memory per device without the dash: `  CUDA0: NVIDIA
# GeForce RTX 3090 (24154 MiB, 23892 MiB free)` (corpus 1190).
GGML_LIST_DEVICE = re.compile(r"^\s*(?P<dev>CUDA\d+): (?P<name>[^()\n]+?) \((?P<total>\d+) MiB, (?P<free>\d+) MiB free\)\s*$")
GGML_USING_DEVICE = re.compile(r"\busing device (?P<dev>CUDA\d+) \((?P<name>[^()]+)\)(?: \([^()]*\))? - "
                               r"(?P<free>\d+) MiB free\b")
# The main device llama.cpp's CUDA backend of 2023 (ggml-cuda.cu, ggml_cuda_set_main_device) names, from
# cudaGetDeviceProperties, where it found more than one: `ggml_cuda_set_main_device: using device 0 (NVIDIA A100 80GB
# PCIe) as main device` (ggml-org/llama.cpp#3616, #4055). A HIP build prints the same line over an AMD GPU.
# llama.cpp's memory breakdown at exit (src/llama-context.cpp, llama_memory_breakdown_print): a table row per device,
# `  - <name> (<description>)`, the description the backend's (CUDA's cudaDeviceProp name) with the vendor's words
# `NVIDIA `, `GeForce `, `Tesla ` stripped: `llama_memory_breakdown_print: |   - CUDA0 (RTX 3070 Laptop GPU) |  7819 =
# 13435 + ...` (ggml-org/llama.cpp, corpus 2824). An RPC server's row (`RPC0 (rog:50052)`) names its address, no GPU.
GGML_BREAKDOWN_DEVICE = re.compile(r"\bllama_memory_breakdown_print: \|\s+- (?P<dev>CUDA\d+) \((?P<name>[^()|]+?)\)\s*\|")
GGML_MAIN_DEVICE = re.compile(r"\bggml_cuda_set_main_device: using device (?P<dev>\d+) \((?P<name>[^()]+)\) "
                              r"as main device")


# The consoles of servers whose own lines no pattern above knows, one row each: (the line's form, the engine it shows,
# the literal every match holds). KoboldCpp (LostRuins/koboldcpp, llama.cpp's library behind its own server: engine
# "llamacpp", as facts/engine_command.GGML_ENGINES names its command) prints its banner `Welcome to KoboldCpp - Version
# 1.82.4`, the backend library it loads (`Initializing dynamic library: koboldcpp_cublas.dll`: koboldcpp.py
# init_library, `.so` on Linux) and its parsed arguments (`Namespace(... gpulayers=10, ... usecublas=['lowvram'] ...)`:
# argparse's repr, koboldcpp.py main) before any of llama.cpp's own lines. Xinference (xorbitsai/inference) logs in
# Python's logging format with its module and pid (`2024-08-27 04:33:13,423 xinference.core.worker 124341 INFO ...`,
# xinference/constants.py XINFERENCE_LOG_FORMAT); it launches each model's engine later (checks/ctr.ENGINE_LAUNCHERS),
# so its lines show the launcher, engine "xinference". TGI's launcher and router log through Rust's tracing with its
# UTC time, level and target (`2023-07-13T13:36:28.050508Z  INFO text_generation_launcher: Starting shard 0`, a shard's
# own lines behind `shard-manager: `; huggingface/text-generation-inference launcher/src/main.rs), engine "tgi". LocalAI
# logs through zerolog's console writer, its time in Go's kitchen form and a three-letter level (`7:23PM INF Loading
# model 'llama-3.2-3b-instruct:q4_k_m' with backend llama-cpp`, `4:52PM DBG GRPC(model-127.0.0.1:40559): stderr ...`:
# mudler/LocalAI#771, #840), the model's backend's own lines behind its GRPC tag; it loads a backend per model
# (checks/ctr.ENGINE_LAUNCHERS), engine "localai". LM Studio's lines carry its tag, in its app log behind
# electron-log's prefix (`[2026-07-23 10:21:52.879] [error] [LM Studio] GPU Configuration:`) and in its developer log
# on the line under the time and level (` [LM STUDIO SERVER] Success! HTTP server listening on port 1234`,
# lmstudio-ai/lmstudio-bug-tracker#2190, #1599), engine "lmstudio" (its llama.cpp or MLX runtime is not named there).
# lmdeploy (InternLM/lmdeploy) logs through Python's logging with its logger's name between dashes (`2024-08-05
# 05:40:52,191 - lmdeploy - WARNING - model_source: hf_model`, lmdeploy/utils.py get_logger; from late 2024 the file and
# line follow the level: `- lmdeploy - INFO - async_engine.py:142 - input backend=turbomind, ...`), its TurboMind engine
# through its C++ logger (`[TM][WARNING] [LlamaTritonModel] max_context_token_num = 16384.`, `[TM][INFO][1] ...` with a
# rank: src/turbomind/utils/logger.h), engine "lmdeploy" (InternLM/lmdeploy#2229, #2724, #2153; corpus 1641, 1279). A
# paste may cut the last line after the logger's name (`2024-08-05 05:42:42,328 - lmdeploy -`, corpus 1641).
# Jan's app log names its llama.cpp plugin as the line's target behind the day and time (`[2026-02-24][12:24:03]
# [tauri_plugin_llamacpp::device][INFO] Getting devices from server at path: ...\llamacpp\backends\b7839\...`:
# janhq/jan src-tauri/plugins/tauri-plugin-llamacpp, which runs llama.cpp's llama-server; corpus 1590), engine
# "llamacpp".
ENGINE_CONSOLES: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"^\s*Welcome to KoboldCpp - Version (\d+(?:\.\d+)+)"), "llamacpp", ("KoboldCpp",)),
    (re.compile(r"^\s*Initializing dynamic library: koboldcpp_\w+\.(?:dll|so|dylib)\s*$"), "llamacpp", ("koboldcpp_",)),
    (re.compile(r"^\s*Namespace\(.*\bgpulayers=-?\d+"), "llamacpp", ("gpulayers=",)),
    # The backend it picks or is told (`Auto Selected CUDA Backend...` from 1.7x, `Attempting to use CuBLAS library for
    # faster prompt ingestion.` before): corpus 1499, LostRuins/koboldcpp#595.
    (re.compile(r"^\s*(?:Auto Selected \w+ Backend\b|Attempting to use (?:CuBLAS|CLBlast|Vulkan|hipBLAS) library\b)"),
     "llamacpp", ("Auto Selected ", "Attempting to use ")),
    (re.compile(r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} xinference\.[\w.]+ \d+ (?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s"),
     "xinference", (" xinference.",)),
    # Xinference 2.x: UTC ISO time, level, module, then its process's fields (`2026-06-24T05:05:51.382Z INFO
    # xinference.core.supervisor pid:36 role:local address:0.0.0.0:49339 node:267b0ddd106e ...`, xorbitsai/inference#5069).
    (re.compile(r"^\s*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) xinference\.[\w.]+ "
                r"pid:\d+ "), "xinference", (" xinference.",)),
    (re.compile(r"^\s*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+(?:[\w-]+: )*"
                r"text_generation_(?:launcher|router|server)\b"), "tgi", ("text_generation_",)),
    (re.compile(r"^\s*\d{1,2}:\d\d[AP]M (?:TRC|DBG|INF|WRN|ERR|FTL) \S"), "localai",
     ("M TRC ", "M DBG ", "M INF ", "M WRN ", "M ERR ", "M FTL ")),
    (re.compile(r"^\s*(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\] \[[a-z]+\]\s+)?\[(?:LM Studio|LM STUDIO SERVER)\] "),
     "lmstudio", ("[LM Studio] ", "[LM STUDIO SERVER] ")),
    # LM Studio's hardware survey of a runtime (llama.cpp engine) it holds, in its console (electron-log's `14:56:18.946 › `,
    # lmstudio-ai/.github#53, corpus 2181) or its main.log (`[2025-02-04 17:58:05.544] [warn]  Failed to survey hardware
    # with backend 'llama.cpp-linux-x86_64-nvidia-cuda-avx2', ...`, lmstudio-bug-tracker#382).
    (re.compile(r"^\s*(?:\d\d:\d\d:\d\d\.\d{3} \u203a |\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\] \[[a-z]+\]\s+)?"
                r"(?:Manifest for backend '[^']+' requires gpu acceleration, but GPU survey\b"
                r"|Failed to survey hardware with backend '[^']+')"), "lmstudio",
     ("Manifest for backend '", "Failed to survey hardware with backend '")),
    (re.compile(r"^\s*\[\d{4}-\d\d-\d\d\]\[\d\d:\d\d:\d\d\]\[tauri_plugin_llamacpp(?:::\w+)*\]\[[A-Z]+\]"),
     "llamacpp", ("[tauri_plugin_llamacpp",)),
    (re.compile(r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - lmdeploy -(?: (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - |\s*$)"),
     "lmdeploy", (" - lmdeploy -",)),
    (re.compile(r"^\s*\[TM\]\[(?:TRACE|DEBUG|INFO|WARNING|ERROR|FATAL)\](?:\[\d+\])? "), "lmdeploy", ("[TM][",)),
    # Aphrodite (PygmalionAI/aphrodite-engine, a vLLM fork: engine "vllm", as facts/processes.py reads its command) 0.5
    # logs through loguru as `INFO:     ` and prints its resolved configuration a key a line under its banner
    # (`INFO:     Initializing the Aphrodite Engine (v0.5.0) with the following config:`, `INFO:     Enforce Eager Mode
    # = False`: aphrodite/engine/aphrodite_engine.py; corpus 2372). Only the banner and the keys of that dump: the
    # level and spaces alone are uvicorn's too.
    (re.compile(r"^\s*(?:INFO|WARNING):\s+(?:Initializing the Aphrodite Engine \(v[\w.]+\)|(?:Model|DataType|"
                r"Model Load Format|Number of GPUs|Disable Custom All-Reduce|Quantization Format|Context Length|"
                r"Enforce Eager Mode|KV Cache Data ?Type?|Device) = )"), "vllm",
     ("Aphrodite Engine", " = ")),
    # NVIDIA Dynamo's `dynamo serve` (0.1-0.3, Rust's tracing format: UTC ISO time, two spaces, level, `module.function:`)
    # prints the resolved config of its graph's services (`INFO utils.resolve_service_config: Running dynamo serve with
    # config: {..., 'VllmWorker': {'enforce-eager': True, 'tensor-parallel-size': 8, ...}}`, `serve.serve: Running dynamo
    # serve with service configs {...}`) and the vLLM build it runs (`__init__.vllm_version_matches_substr: Using
    # ai_dynamo_vllm`); its vLLM workers' keys are vLLM's own flags (ai-dynamo/dynamo#1405, #1229; corpus 2873, 2875).
    (re.compile(r"^\s*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)\s+[\w.]+: "
                r"(?:Running dynamo serve with (?:service )?configs?:? \{.*'(?:VllmWorker|PrefillWorker)': \{"
                r"|Using ai_dynamo_vllm\b)"), "vllm", ("Running dynamo serve with", "Using ai_dynamo_vllm")),
    # distributed-llama's dllama (b4rtaz/distributed-llama) tags its start-up lines with an emoji per kind: its model's
    # header (`💡 Arch: Qwen3`), its memory (`📀 RequiredMemory: 3712 MB`), its workers' TCP sockets (`⭕ Socket[0]:
    # connecting to <WORKER_IP>:9999 worker`, `⭕ Network is initialized`) and the Vulkan device it runs on (`🌋 Device:
    # NVIDIA Tegra Orin (nvgpu)`, `🌋 DeviceApiVersion: 1.3.251`): corpus 2829, distributed-llama#265. Engine "dllama":
    # its own CPU and Vulkan backends, its nodes joined over its own sockets (no CUDA, no NCCL).
    (re.compile("^\\s*(?:[\U0001F4A1\U0001F4C4] [A-Za-z]+: \\S|\U0001F4C0 RequiredMemory: \\d+ MB"
                "|\u2b55 (?:Socket\\[\\d+\\]: |Network is initialized)|\U0001F30B [A-Za-z]+(?:\\[\\d+\\])?: \\S)"),
     "dllama", ("Memory: ", "Network is initialized", "Socket[", "Device: ", "DeviceApiVersion: ", "Heap[",
                "Arch: ", "Act: ", "Dim: ", "Size: ", "Heads: ", "nLayers: ", "SeqLen: ", "Epsilon: ", "Rope",
                "AddBos: ", "BosId: ", "EosId: ")),
    # Triton's metrics start-up message without glog's prefix, as a log viewer shows a pod's messages, each in quotes
    # (`"found 1 GPUs supporting NVML metrics`, GKE's, corpus 1817): the message is metrics.cc's alone.
    (re.compile(r"^\s*\"?found \d+ GPUs supporting NVML metrics\"?\s*$"), "triton", ("GPUs supporting NVML",)),
    # Its next message, each GPU it collects for, copied the same way (`" GPU 0: Tesla T4"`, corpus 1817).
    (re.compile(r"^\s*\"\s*GPU \d+: [^\"]+\"\s*$"), "triton", ('" GPU ',)),
)
# LocalAI runs each model in a backend process it reaches over gRPC and logs that process's output behind its GRPC tag
# (`7:52PM DBG GRPC(server-127.0.0.1:36099): stderr ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no`, mudler/LocalAI#4199,
# corpus 1976), and names the backend it loads (`7:23PM INF Loading model '...' with backend llama-cpp`, LocalAI#771;
# `Loading Model x with gRPC (file: ...) (backend: llama-cpp)`, LocalAI#1433; its build variants `cuda12-llama-cpp`,
# `llama-cpp-avx2`). A line that lists the backends it may try (`with the backend '[llama-cpp ... vllm ...]'`) names none. Where its lines show the llama.cpp backend, by its name or by ggml's
# and llama.cpp's own function-tagged lines behind the tag, the engine that runs the model is llama.cpp's, as
# TensorRT-LLM's lines name Triton's backend (engine "trtllm").
LOCALAI_LLAMACPP = re.compile(r"\bGRPC\([^)]*\): std(?:err|out) (?:ggml_[a-z_]+|llama_[a-z_]+|llm_load_[a-z_]+):\s"
                              r"|(?:\bwith backend |\(backend: |\bBackendLoader starting backend=)"
                              r"(?:[\w-]+-)?llama-cpp(?:-[\w-]+)?\b")
# TGI's launcher prints its arguments as Rust's Debug form, on one line before 2024 (`Args { model_id: "...", ...,
# num_shard: Some(2), ... }`) and pretty-printed since (`Args {` over one field a line, `num_shard: Some(` over `4,`),
# which parse_serving_log folds back onto the `Args {` line (fold_args_block). Its shard count is its tensor-parallel
# size (facts/_parse: one shard per GPU).
TGI_ARGS_OPEN = re.compile(r"\btext_generation_launcher: Args \{\s*$")
# `text-generation-launcher --env` (TGI's issue template asks for it) prints its runtime environment under a log line,
# one `Key: value` a line (launcher/src/env_runtime.rs: Target, Cargo version, Commit sha, Docker label, then
# `nvidia-smi:` over nvidia-smi's own output, read by its own reader). The Docker label is the commit of TGI's image
# the launcher runs in (its Dockerfile sets DOCKER_LABEL), `N/A` outside it (corpus 1756, 245, 734; a launcher built
# from source in a conda env, corpus 1775, 320, 746): TGI_NO_IMAGE.
_TGI_ENV_HEAD = r"\btext_generation_launcher: Runtime environment:"
_TGI_ENV_ABOVE_LABEL = r"Target|Cargo version|Commit sha"  # the fields printed above its Docker label
TGI_ENV_OPEN = re.compile(_TGI_ENV_HEAD + r"\s*$")
_TGI_ENV_FIELD = re.compile(rf"^\s*(?:(?:{_TGI_ENV_ABOVE_LABEL}|Docker label|Python version)\s*:\s*\S|nvidia-smi:\s*$)")
TGI_IMAGE_LABEL = re.compile(_TGI_ENV_HEAD + rf"[ \t]*\n(?:[ \t]*(?:{_TGI_ENV_ABOVE_LABEL})[ \t]*:[^\n]*\n){{0,4}}"
                             r"[ \t]*Docker label[ \t]*:[ \t]*(sha-[0-9a-f]{7,40}\b|N/A(?=[ \t]*$))[^\n]*(\n[ \t]*nvidia-smi:[ \t]*$)?",
                             re.M)
TGI_NO_IMAGE = "N/A"
_TGI_SHARDS = re.compile(r"\bnum_shard: Some\(\s*(\d+),?\s*\)")
# lmdeploy's TurboMind prints the model config it built under its log line, after a blank line (lmdeploy/turbomind/
# turbomind.py): in 2024 as INI (`model_config:` over `[llama]` and one `key = value` a line, `tensor_para_size = 2`:
# InternLM/lmdeploy#2229, #2153), from late 2024 as JSON (`turbomind model config:` over `{`, `"model_config": {`, ...:
# #2724). parse_serving_log folds the block back onto its log line (fold_args_block).
TURBOMIND_CONFIG_OPEN = re.compile(r" - lmdeploy - \w+ - (?:[\w.]+:\d+ - )?(?:turbomind model config|model_config):\s*$")
_TURBOMIND_CONFIG_LINE = re.compile(r'^\s*(?:\[\w+\]|\w+ =(?: .*)?|[{}\[\]],?|"\w+": .*|-?[\d.]+,?)\s*$')
_TURBOMIND_CONFIG_LINES = 400  # the JSON lists a per-layer size one a line: a 126-layer model's is that long


def _turbomind_config_end(lines: list[str], start: int) -> int:
    """The line after TurboMind's config block under lines[start] (its blank lines inside kept), start + 1 where none
    follows."""
    end = start + 1
    for j in range(start + 1, min(len(lines), start + 1 + _TURBOMIND_CONFIG_LINES)):
        if not lines[j].strip():
            continue
        if not _TURBOMIND_CONFIG_LINE.match(lines[j]):
            break
        end = j + 1
    return end


def args_block_end(lines: list[str], start: int, limit: int = 200) -> int:
    """The line after TGI's pretty-printed Args block opened on lines[start] (TGI_ARGS_OPEN): after its closing `}`,
    or, where a paste cuts it, after its last indented field line; after TurboMind's config block under its log line
    (TURBOMIND_CONFIG_OPEN); after the `Key: value` lines of TGI's runtime environment (TGI_ENV_OPEN); start + 1 where
    lines[start] opens none."""
    if "config:" in lines[start] and TURBOMIND_CONFIG_OPEN.search(lines[start]):
        return _turbomind_config_end(lines, start)
    if "Runtime environment:" in lines[start] and TGI_ENV_OPEN.search(lines[start]):
        end = start + 1
        while end < len(lines) and end - start <= 6 and _TGI_ENV_FIELD.match(lines[end]):
            end += 1
            if lines[end - 1].strip() == "nvidia-smi:":
                break  # nvidia-smi's own output follows, for its own reader
        return end
    if "Args {" not in lines[start] or not TGI_ARGS_OPEN.search(lines[start]):
        return start + 1
    end = start + 1
    for j in range(start + 1, min(len(lines), start + 1 + limit)):
        if lines[j].strip() == "}":
            return j + 1
        if not lines[j][:1].isspace() or not lines[j].strip():
            break
        end = j + 1
    return end


def fold_args_block(lines: list[str]) -> list[str]:
    """The lines with each pretty-printed Args block of TGI's launcher joined onto its `Args {` line."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        end = args_block_end(lines, i)
        out.append(" ".join(ln.strip() for ln in lines[i:end]) if end > i + 1 else lines[i])
        i = end
    return out
CONSOLE_NEEDLES = tuple(needle for row in ENGINE_CONSOLES for needle in row[2])


def console_engine(line: str) -> str:
    """The engine a line of ENGINE_CONSOLES shows, or "" where the line is none of them."""
    return next((engine for rx, engine, needles in ENGINE_CONSOLES if any(n in line for n in needles) and rx.match(line)), "")


# HAMi-core (libvgpu.so), the CUDA and NVML interception HAMi's device plugin loads into each container it gives a vGPU
# share, logs into the program's own output: `[HAMI-core Msg(24953:139932371863360:multiprocess_memory_limit.c:468)]:
# Calling exit handler 24953` (corpus 2198), `[HAMI-core ERROR (utils.c:160)]: host pid is error!` (2736); under its
# former name, 4paradigm's k8s-vgpu-scheduler, `[4pdvGPU Warn(28:140476096096064:util.c:135)]: ...` (938). It caps the
# memory CUDA reports to the program at the pod's share (https://github.com/Project-HAMi/HAMi-core).
HAMI_CORE_LINE = re.compile(r"\[(?:HAMI-core|4pdvGPU) (?:Msg|Info|Warn|ERROR|Debug) ?\(")
HAMI_CORE_NEEDLES = ("[HAMI-core ", "[4pdvGPU ")


# A literal of each line pattern above: NCCL_LINE's `NCCL`, VLLM_LINE's `file.py:N`, SGLANG_LINE's closing `] `,
# and a word of every KEY_PHRASES alternative (lowercase: that pattern ignores case). Short words shared by several
# phrases (and other recognisers): each needle is a pass over the text (importers/logs.py).
KEY_NEEDLES = ("allreduce", "p2p", "graph", "cumem", "get_mempolicy", "nccl", "not supported", "llm", "libnvinfer",
               "libth_common",
               "serverargs(", "non-default args", "enforce_eager", "capturing batches", "_marlin",
               "native support for fp", "potential backends", "omp_num_threads", "#running-req", "#new-seq",
               "torchrun", "engine_args.", "on startup is less", "memory profiling", "avg prompt throughput", "custom_all_reduce", "no kernel image",
               "use_cached_outputs",
               "no_binary_for_gpu", "nokernelimagefordevice", "unsupported architecture", "keyerror: '",
               *GGML_NEEDLES)
_KEY_HINT = re.compile("|".join(re.escape(n) for n in KEY_NEEDLES))


# libfabric's own log lines (`libfabric:22:1725400706::efa:domain:efa_domain_hmem_info_init_cuda():169<warn> ...`, its
# `<pid>:<time>::<provider>:<subsystem>:` prefix): the network library under aws-ofi-nccl, NCCL's plugin for AWS EFA.
LIBFABRIC_LINE = re.compile(r"\blibfabric:\d+:\d+::(\w+):")
# An AWS EFA device at work under NCCL: aws-ofi-nccl's choice of libfabric's efa provider (`NET/OFI Selected Provider is
# efa (found 4 nics)`), or libfabric's efa provider logging (it opens a domain only on an EFA device). The OFI plugin
# over libfabric's tcp provider (`Selected Provider is tcp`, aws/aws-ofi-nccl#803) is no RDMA NIC.
EFA_SIGHTED = re.compile(r"NET/OFI Selected Provider is efa\b|\blibfabric:\d+:\d+::efa:")
# aws-ofi-nccl's word on the machine: the EC2 instance type it read from DMI's product name
# (nccl_ofi_system.cpp nccl_net_ofi_get_product_name: /sys/devices/virtual/dmi/id/product_name), with the topology file
# it hands NCCL for that type (platform-aws.cpp: `Running on p4d.24xlarge platform, topology file <xml>`; releases
# before 1.11 `Setting NCCL_TOPO_FILE environment variable to <xml>`; the first ones named the family alone, `Running on
# P4d platform`), or the one the job set itself (`NCCL_TOPO_FILE environment variable is already set to <path>`).
# https://github.com/aws/aws-ofi-nccl/blob/master/src/platform-aws.cpp
OFI_PLATFORM = re.compile(r"NET/OFI Running on (?P<platform>[\w.-]+) platform, (?:topology file|Setting NCCL_TOPO_FILE "
                          r"environment variable to|NCCL_TOPO_FILE environment variable is (?P<own>already) set to) "
                          r"(?P<file>\S+)")
# The first releases printed the family of the one platform they had a file for: p4d.24xlarge.
_OFI_FAMILIES = {"P4d": "p4d.24xlarge"}
# libfabric's efa provider could not register a CUDA buffer with the EFA device (prov/efa efa_domain_hmem_info_init_cuda:
# "FI_HMEM transfers that require peer to peer support will fail"): the NIC cannot reach GPU memory, neither through
# nvidia_peermem nor DMA-BUF, as an IB HCA's `GPU Direct RDMA Disabled` line says (aws/aws-k8s-tester#473, corpus 1580).
_EFA_NO_GPU_MEMORY = re.compile(r"Failed to register CUDA buffer with the EFA device")
# A net plugin over TCP that NCCL loaded as its network: Google's FastSocket (`NET/FastSocket plugin initialized`,
# `NET/FastSocket : Using [0]ens8:...`, `NET/Plugin: Loaded net plugin FastSocket (v6)`; corpus 1578,
# NVIDIA/nccl#1519). NCCL takes a loaded plugin's network in place of its own IB and socket ones (init.cc
# ncclNetPluginInit), so the job's traffic between nodes goes over TCP.
TCP_NET_PLUGIN = re.compile(r"NET/FastSocket\s*(?::\s*Using\b|plugin initialized)|NET/Plugin\s*:\s*Loaded net plugin "
                            r"FastSocket\b")


def is_log_line(line: str) -> bool:
    """Whether a line of a paste belongs to a server or NCCL log. Each pattern runs only where its literal
    stands (a 50 MB paste: the case-blind KEY_PHRASES search is the dearest test, and most lines hold none).
    Only a line's first LINE_LOOK_CHARS are read: the case-blind search costs about 1 s a MB."""
    line = line[:LINE_LOOK_CHARS]
    return bool(("NCCL " in line and (NCCL_LINE.search(line) or NCCL_BANNER.match(line)))
                or (" WARN " in line and NCCL_OLD_WARN.match(line) is not None)
                or ("cudaDriverVersion" in line and NCCL_BANNER.match(line)) or (".py:" in line and VLLM_LINE.search(line))
                or ("] " in line and SGLANG_LINE.search(line))
                or (line[:1] == "(" and (VLLM_UVICORN_LINE.match(line) is not None
                                          or VLLM_CUT_LINE.match(line) is not None))
                or (any(needle in line for needle in GGML_NEEDLES) and GGML_LOG_LINE.match(line))
                or (" level=" in line and OLLAMA_LINE.search(line) is not None and not OLLAMA_DISCOVERY.search(line))
                or (".go:" in line and OLLAMA_GO_LINE.search(line) is not None and not OLLAMA_POOLED_VRAM.search(line))
                or ("msg=" in line and is_ollama_cut_line(line) and not OLLAMA_DISCOVERY.search(line))
                or (".cc:" in line and TRITON_LINE.match(line) is not None)
                or ("[TensorRT-LLM][" in line and TRTLLM_LINE.match(line) is not None)
                or (any(needle in line for needle in CONSOLE_NEEDLES) and bool(console_engine(line)))
                or ("libfabric:" in line and LIBFABRIC_LINE.search(line) is not None)
                or (any(needle in line for needle in HAMI_CORE_NEEDLES) and HAMI_CORE_LINE.search(line) is not None)
                or (_KEY_HINT.search(line.lower()) and KEY_PHRASES.search(line)))


# --- parsed log ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NcclChannel:
    """One `Channel xx : a[x] -> b[y] via T/...` line, or a rank's `CollNet xx/y : r [receive] via COLLNET/...` line
    (src and dst both that rank)."""

    channel: str
    src: int
    dst: int
    transport: str  # "P2P" | "SHM" | "NET" | "COLLNET" | other
    detail: str  # "IPC/read", "CUMEM", "direct pointer", "direct/direct", "IB/0/GDRDMA", "Socket/3", "SHARP/5/GDRDMA"
    host: str = ""
    line: str = ""
    direction: str = ""  # "send" | "receive" (NET lines) | ""
    # What the brackets after each rank hold: the GPU's PCI bus ID in hex (`1a000`, NCCL 2.5 and later) or, in older
    # releases, its CUDA device index (`0`).
    src_gpu: str = ""
    dst_gpu: str = ""

    @property
    def gdr(self) -> bool:
        return "GDRDMA" in self.detail

    @property
    def rdma(self) -> bool:
        """A channel through an RDMA NIC: a NET channel but NET/Socket's, or a CollNet channel (SHARP and the other
        CollNet plugins reduce in the network through RDMA NICs; NCCL checks GDR for them as for NET,
        transport/coll_net.cc `ncclTopoCheckGdr`)."""
        return (self.transport == "NET" and not self.detail.lower().startswith("socket")) or self.transport == "COLLNET"

    @property
    def local(self) -> int:
        """The rank that printed the line: the receiver of a `[receive]` line, else the sender."""
        return self.dst if self.direction == "receive" else self.src


@dataclass(frozen=True)
class GdrDecision:
    """One NCCL line that says whether GPU Direct RDMA is on.

    A GPU's line (`GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 5 > 4)`, graph/paths.cc
    ncclTopoCheckGdr, INFO in NCCL 2.5 to 2.26) weighs that GPU's PCIe path to one NIC against NCCL_NET_GDR_LEVEL.
    NCCL prints it only for a NIC that can reach GPU memory, for every GPU of the host, at every init.
    An HCA's line (`NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`, graph/topo.cc from NCCL 2.18, the IB
    plugin's `(no module)` before) says whether the NIC can reach GPU memory at all: through nvidia_peermem's
    peer-memory client or through DMA-BUF.
    """

    gpu: str  # the GPU a GPU's line names (a bus id, a rank from NCCL 2.26); "" on an HCA's line
    hca: str  # the NIC's index, with its name where the line gives it
    enabled: bool
    net: str  # the network an HCA's line names (`IB`, `Socket`, a plugin's name); "" on a GPU's line
    line: str

    @property
    def rdma(self) -> bool:
        """An HCA's line of an RDMA network: NET/Socket never reaches GPU memory, so its `Disabled` says nothing."""
        return not self.gpu and self.net.lower() != "socket"


# Reason codes for "Custom allreduce is disabled ..."
AR_PCIE_ONLY = "pcie-only"  # world size > 2 without full NVLink
AR_NO_P2P = "no-p2p"  # P2P capability missing or the real P2P test failed
AR_WORLD_SIZE = "world-size"
AR_MULTI_NODE = "multi-node"
AR_NO_LIBRARY = "no-library"
# vLLM 0.3.1-0.3.3 turned the kernels off for every TP run (vllm-project/vllm#2808): "Custom all-reduce kernels
# are temporarily disabled due to stability issues".
AR_RELEASE = "release"
AR_OTHER = "other"
_AR_REASONS = (
    (re.compile(r"more than two PCIe-only GPUs", re.I), AR_PCIE_ONLY),
    (re.compile(r"lacks GPU P2P capability|P2P test failed", re.I), AR_NO_P2P),
    (re.compile(r"unsupported world size", re.I), AR_WORLD_SIZE),
    (re.compile(r"spans across nodes", re.I), AR_MULTI_NODE),
    (re.compile(r"missing custom allreduce library", re.I), AR_NO_LIBRARY),
)
# The "lacks GPU P2P capability" line of the releases whose P2P gate was the driver's report alone
# (`torch.cuda.can_device_access_peer` in `_can_p2p`): vLLM from its custom all-reduce (vllm-project/vllm#2192) to the
# real P2P test (vllm-project/vllm#2760), and forks of that code such as Aphrodite 0.5 (its "To slience" typo). The
# releases with the real test end the reason with "or P2P test failed".
_AR_DRIVER_ONLY = re.compile(r"lacks GPU P2P capability\.(?!\s*or\b)", re.I)


# CUDA's refusal of NCCL's NVLS buffers (ServingLog.nvls_refused).
_NVLS_REFUSED = re.compile(r"transport/nvls\.cc:\d+ NCCL WARN Cuda failure (?:\d+ )?'invalid argument'")
# NCCL 2.26's line of that refusal (ServingLog.nvls_refused_by_nccl_2_26).
_NVLS_REFUSED_2_26 = re.compile(r"transport/nvls\.cc:254 NCCL WARN")


@dataclass(frozen=True)
class ServingLog:
    # "vllm" | "sglang" | "llamacpp" (GGML_LOG_LINE, KoboldCpp's console) | "ollama" (OLLAMA_LINE) | "triton"
    # (TRITON_LINE) | "trtllm" (TRTLLM_LINE, or Triton's TensorRT-LLM backend) | "xinference" | "tgi" | "localai" |
    # "lmstudio" | "lmdeploy" (ENGINE_CONSOLES) | "" (only NCCL lines)
    engine: str = ""
    line_count: int = 0
    custom_ar_disabled: tuple[tuple[str, str], ...] = ()  # (reason code, line)
    p2p_cache_paths: tuple[str, ...] = ()  # cache files vLLM read or wrote
    p2p_cache_generated: bool = False  # "generating GPU P2P access cache": the real probe ran
    # vLLM's "Skipping P2P check and trusting the driver's P2P report." (custom_all_reduce.py, VLLM_SKIP_P2P_CHECK=1,
    # the default since vllm-project/vllm#13143): a "lacks GPU P2P capability" after it is the driver's own refusal.
    p2p_check_skipped: str = ""
    # "P2P is not supported", "peer access is not supported", NCCL's "Could not enable P2P between dev"
    p2p_failures: tuple[str, ...] = ()
    nccl_version: str = ""
    # The CUDA NCCL was built for (`NCCL version 2.21.5+cuda11.8`) and the highest CUDA the driver supports, as
    # NCCL's init reports it (`NCCL INFO cudaDriverVersion 12000`: 12.0), with the lines that say so.
    nccl_cuda: str = ""
    driver_cuda: str = ""
    cuda_lines: tuple[str, ...] = ()
    # The vLLM release the log names (`Initializing an LLM engine (v0.4.2)`, `vLLM API server version 0.9.2`).
    vllm_version: str = ""
    # The first line in SGLang's dated prefix (SGLANG_DATED_LINE: `[2025-01-27 11:13:24 TP0] Prefill batch...`, or
    # `[2025-05-14 09:28:52] server_args=ServerArgs(`): a release from late 2024 on, whatever the engine's version.
    sglang_dated_line: str = ""
    # The first of vLLM's stats lines in the scheduler's format of its first releases (VLLM_EARLY_STATS), which no
    # release that captures CUDA graphs prints.
    vllm_early_stats_line: str = ""
    # The first of vLLM's stats lines as llm_engine.py printed them (VLLM_2023_STATS), 0.1.4 to 0.2.7: a release of
    # those, most of which (before 0.2.6) captured no CUDA graphs.
    vllm_2023_stats_line: str = ""
    # The vLLM worker services of Dynamo's `dynamo serve` config line whose sections it shows whole (dynamo_workers):
    # (service, TP, runs on Ray), and the line.
    dynamo_workers: tuple[tuple[str, int, bool], ...] = ()
    dynamo_line: str = ""
    channels: tuple[NcclChannel, ...] = ()
    nccl_hosts: tuple[str, ...] = ()  # hostnames in NCCL lines (more than one: multi-node)
    nccl_devices: tuple[int, ...] = ()  # the CUDA devices of NCCL lines' `host:pid:tid [3] NCCL` tags
    # The first tagged NCCL line of its ring, channel or tree set-up (NCCL_RINGS) or of its topology's sysfs path
    # (NCCL_GPU_PATH_WARN): NCCL built its topology from the CUDA device it opened (its PCI bus id read through
    # CUDA); "" where none is shown.
    nccl_rings_line: str = ""
    nccl_pids: tuple[int, ...] = ()  # the processes (pids) of the same tags, in the order they first appear
    # The IP interfaces NCCL names in its `Bootstrap : Using`, `NET/Socket : Using` and `OOB` lines: (interface,
    # address, line). NCCL keeps one address per interface name (misc/socket.cc findInterfaces).
    nccl_addresses: tuple[tuple[str, str, str], ...] = ()
    nccl_env: dict[str, str] = field(default_factory=dict)  # "NCCL_X set by environment to Y"
    # Lines that show the library is RCCL, AMD's build of NCCL for ROCm (_RCCL): its ranks are AMD GPUs.
    rccl_lines: tuple[str, ...] = ()
    nccl_net: tuple[str, ...] = ()  # NET/IB, NET/Socket and net plugin lines (devices, GDR), libfabric's EFA lines
    gdr: tuple[GdrDecision, ...] = ()  # NCCL's GPU Direct RDMA lines, per GPU and per HCA
    # NCCL's `Setting affinity for GPU 2 to ffffff,ffffffff` lines (graph/topo.cc ncclTopoGetCpuAffinity): (host, the
    # CUDA device, the CPU set as printed, line). NCCL prints one only for a non-empty set, the CPUs local to that GPU
    # (NCCL's topology) within the process's own mask (all of them under NCCL_IGNORE_CPU_AFFINITY=1); its threads and
    # host buffers of that rank are made there.
    gpu_affinity: tuple[tuple[str, int, str, str], ...] = ()
    # "captured" | "capturing" (begun, its end not shown) | "eager" | "configured" (the resolved configuration dump
    # keeps them on, no capture line) | "defaults" (vLLM's whole non-default args name no graph setting) | "flags"
    # (vLLM's `args: Namespace(` sets enforce_eager=False and nothing else shown narrows graphs) | "mode set"
    # (vLLM V1 fell back to a graph mode other than NONE, no capture line) | ""
    cuda_graphs: str = ""
    cuda_graph_lines: tuple[str, ...] = ()
    tp_size: int | None = None
    pp_size: int | None = None
    dp_size: int | None = None
    disable_custom_all_reduce: bool | None = None  # the engine's own config dump
    cumem_fallback: tuple[str, ...] = ()
    nccl_warnings: tuple[str, ...] = ()
    # The Docker label of TGI's image where its `--env` report shows the launcher ran in it (TGI_IMAGE_LABEL), or
    # TGI_NO_IMAGE (`N/A`) where the report shows it ran outside TGI's image, and whether the report's nvidia-smi
    # follows the label (run by the launcher).
    tgi_image: str = ""
    tgi_image_smi: bool = False
    # `comm ... nRanks 3 nNodes 3 localRanks 1`: the most ranks NCCL put on one node (0: no such line).
    local_ranks: int = 0
    # The most ranks of any communicator the log shows (0: no such line).
    comm_ranks: int = 0
    # Each `comm 0x.. rank R nranks N [… commId 0x..]` line (NCCL's init and Init COMPLETE lines): (host, pid or 0,
    # R, N, commId or "", line). The commId (NCCL >= 2.18) names the communicator across its ranks.
    comm_members: tuple[tuple[str, int, int, int, str, str], ...] = ()
    # The node counts the log states: (nodes, ranks they cover, line). NCCL's `comm 0x.. rank 0 nRanks 4 nNodes 1`
    # counts one communicator's hosts (init.cc, from each rank's host hash); vLLM's "Detected 1 nodes in the
    # distributed environment" counts its whole world (ranks 0), by which ranks open one shared-memory segment; a
    # torchrun command line's `--nnodes` (default 1) counts the nodes its job's ranks start on (ranks 0).
    node_counts: tuple[tuple[int, int, str], ...] = ()
    # NCCL's `Trees [c] d0/d1/d2->rank->up` lines where a rank has a second or third child (d1 or d2 above -1): NCCL
    # chains a node's ranks with d0 alone (graph/connect.cc ncclTopoPreset) and adds children only from the tree
    # between nodes (connectTrees), so such a line shows the communicator spans nodes.
    tree_branches: tuple[str, ...] = ()
    # vLLM's own `world_size=N rank=R local_rank=L` line (parallel_state.py), TensorRT-LLM's `MPI size: N`: its N (0:
    # not shown). TensorRT-LLM's `MPI local size: N` counts the ranks on one node, as NCCL's localRanks (local_ranks).
    world_size: int = 0
    # vLLM's message-queue handles with no remote reader (shm_broadcast.py): (ranks on its segment, line).
    mq_shared: tuple[tuple[int, str], ...] = ()
    # The engine's config names a KV-cache transfer between instances (vLLM's kv_transfer_config, a NIXL or
    # Mooncake connector, SGLang's disaggregation_mode): disaggregated serving, whose KV traffic leaves the node.
    kv_transfer: bool = False
    # vLLM's Ray warning that its TP size is larger than the GPUs Ray reserves on a node (ray_utils.py
    # `_verify_bundles`: "tensor_parallel_size=16 is bigger than a reserved number of GPUs (8 GPUs) in a node <id>.
    # Tensor parallel workers can be spread out to 2+ nodes"): (TP size, the node's GPUs, line), one per node named.
    tp_beyond_node: tuple[tuple[int, int, str], ...] = ()
    # NCCL's lines that NVLS multicast is set up: `16 nvls channels` above 0, `NVLS multicast support is available`,
    # `NVLS comm ... headRank 0 nHeads 4`, a multi-node job's `NVLS Head  0:  0  8` (_NVLS_UP).
    nvls_lines: tuple[str, ...] = ()
    gpu_bus_ids: tuple[str, ...] = ()  # the GPUs of `comm ... busId e9000` lines, in sysfs form (0000:e9:00.0)
    model: str = ""  # the model the configuration dump names (vLLM `model=`, SGLang `model_path=`)
    # SGLang's decode lines (`Decode batch. #running-req: N, ... cuda graph: False, ...`): the running batch of
    # each step and whether it replayed a CUDA graph, in log order (a batch above the capture cap runs eagerly).
    decode_graph_batches: tuple[tuple[int, bool], ...] = ()
    decode_graph_lines: tuple[str, ...] = ()  # the first eager decode lines, verbatim
    # Kernel choices the configuration dumps name, as flags: (`--quantization`, `awq`) from vLLM's `quantization=awq`
    # or `'quantization': 'awq'`, SGLang's `attention_backend='triton'`; the last value of each.
    kernel_settings: tuple[tuple[str, str], ...] = ()
    # The engine's own lines about a kernel or backend it chose or fell back to (Marlin, attention backend), verbatim.
    kernel_lines: tuple[str, ...] = ()
    # The torch.distributed launcher's warning (torch/distributed/run.py): "Setting OMP_NUM_THREADS environment
    # variable for each process to be 1 in default", or vLLM's "Reducing Torch parallelism from N threads to 1"
    # (_LAUNCHER_OMP): the value it set in every rank or worker it started, and the line.
    launcher_omp: tuple[str, str] | None = None
    # NCCL's path dump (`NCCL INFO GPU/4B000 :GPU/4B000 (0/5000.0/LOC) GPU/51000 (2/160.0/NVL) NVS/0 (1/160.0/NVL) …`,
    # src/graph/paths.cc printNodePaths): (GPU bus id, peer GPU bus id, path type) for every GPU pair it lists.
    gpu_paths: tuple[tuple[str, str, str], ...] = ()
    gpu_path_lines: tuple[str, ...] = ()  # the first lines, verbatim
    # The same dump's network devices: (GPU bus id, `NET/0`, path type) for every NET it lists after a GPU.
    gpu_nets: tuple[tuple[str, str, str], ...] = ()
    # The same dump's GPU lines that list the CPUs and end on a whole entry but no NET (_PATH_NO_NET), verbatim: NCCL
    # prints its topology after dropping every NET of a communicator whose ranks are all on this node.
    netless_path_lines: tuple[str, ...] = ()
    # The CPU node the same dump puts each GPU under (cpu_homes): (GPU bus id, `CPU/1`, the line), from a GPU's line
    # (the CPU it reaches over PHB) and from a NET's line (`NET/3 :GPU/2000 (4/1.25/SYS) ... CPU/1 (2/1.25/PHB)`).
    gpu_homes: tuple[tuple[str, str, str], ...] = ()
    # Custom all-reduce at work: each rank's `Registering N cuda graph addresses` (vLLM's and SGLang's
    # custom_all_reduce.py, once the rank's CUDA graphs are captured) and the rank tags (log_rank) of those lines.
    custom_ar_registered: tuple[str, ...] = ()
    custom_ar_ranks: tuple[str, ...] = ()
    # A CUDA error raised in custom all-reduce's kernel source, verbatim:
    # `Failed: Cuda error .../csrc/custom_all_reduce.cuh:307 'peer access is not supported between these two devices'`;
    # or a traceback frame in its buffer sharing (_AR_FRAME).
    custom_ar_errors: tuple[str, ...] = ()
    # The rank tags (log_rank) of the lines that say a rank finished capturing its CUDA graphs: one GPU each.
    graph_ranks: tuple[str, ...] = ()
    # Every rank tag (log_rank) the log's lines carry, in order: the ranks the log shows, a lower bound of its world.
    ranks: tuple[str, ...] = ()
    # llama.cpp's `offloaded N/M layers to GPU` (GGML_OFFLOADED), ollama's `layers.model=M layers.offload=N`
    # (OLLAMA_OFFLOAD): (N, M, the line) of the last such line.
    gpu_layers: tuple[int, int, str] | None = None
    # llama.cpp's line that its weights took no GPU memory (GGML_NO_VRAM); "" where none says so.
    no_vram_line: str = ""
    # ollama's weighing of the model against a GPU's free memory (OLLAMA_FIT): (free GiB, the whole model's GiB, the
    # line) of the last such line.
    model_fit: tuple[float, float, str] | None = None
    # The first line only a native Windows build logs (OLLAMA_WINDOWS: ollama's Windows-only sources, llama.cpp's MSVC
    # build line): it ran on native Windows, where WDDM manages the GPU's memory and reserves the desktop's share; ""
    # where no line shows it.
    ollama_windows_line: str = ""
    # ollama's placement lines of a GPU library (OLLAMA_PLACED): (the most GPUs one lists in `memory.available`, its
    # `memory.available="[...]"` as written, the line). One GPU on every line: each model's runner holds it on one GPU.
    ollama_gpus: tuple[int, str, str] | None = None
    # Each list of compute capabilities (750 for 7.5) a llama.cpp CUDA build of the log carries (GGML_CUDA_ARCHS), with
    # its line: one per build the log shows (ollama probes one CUDA library after another).
    ggml_cuda_archs: tuple[tuple[tuple[int, ...], str], ...] = ()
    # Each CUDA device's (ollama's `CUDA.N`, "" for llama.cpp's one `CUDA :` entry) USE_GRAPHS value of a llama.cpp
    # CUDA build (GGML_USE_GRAPHS), and the first line that shows one.
    ggml_use_graphs: tuple[tuple[str, bool], ...] = ()
    ggml_graphs_line: str = ""
    # The first `system_info:` line's (n_threads, n_threads_batch, the CPUs llama.cpp counts, OPENMP = 1 in the build,
    # the line) (GGML_THREADS, GGML_OPENMP).
    ggml_threads: tuple[int, int, int, bool, str] | None = None
    # The first llama.cpp feature line of a build with no BLAS or GPU backend (GGML_NO_GPU_BACKEND: `... | BLAS = 0 |
    # ...`), "" where none is shown.
    ggml_no_gpu_backend: str = ""
    # The CUDA devices llama.cpp allocated a buffer on (GGML_CUDA_BUFFER) or chose for the model and read the free
    # memory of (GGML_USING_DEVICE, GGML_DEVICE_INFO), or whose row its memory breakdown at exit prints
    # (GGML_BREAKDOWN_DEVICE: the free memory the backend read, cudaMemGetInfo, beside the buffers it allocated there),
    # in order, and the first such line.
    ggml_cuda_devices: tuple[str, ...] = ()
    ggml_cuda_line: str = ""
    # The line of the one CUDA device llama.cpp's model-buffer blocks name beside the host's buffers
    # (ggml_one_gpu_buffers); "" where they name several devices or none, or the paste ends inside one.
    ggml_one_gpu: str = ""
    # The devices of llama.cpp's `device_info:` list that another ggml backend drives (GGML_OTHER_DEVICE_INFO:
    # `Vulkan0`, `Metal`), in order.
    ggml_other_devices: tuple[str, ...] = ()
    # llama.cpp's release (its build number, tag b7018) and the banner line that states it (GGML_BUILD_INFO,
    # GGML_VERSION); "" where the log shows none. A log of the banner alone shows the build, not a run: its `engine`
    # stays "" (facts/engines_shown reads the release as llama.cpp shown).
    llamacpp_release: str = ""
    llamacpp_release_line: str = ""
    # NCCL's topology tree (`=== System : maxBw ...`, NcclTopoTree), None where the log shows none.
    topo_tree: NcclTopoTree | None = None
    # The first line of Triton Inference Server's own (TRITON_LINE): Triton serves the engine (`triton` alone, or
    # TensorRT-LLM through its backend).
    triton_line: str = ""
    # TensorRT-LLM's `Rank 0 is using GPU 0` (its runtime picking each MPI rank's CUDA device): (rank, device), in order.
    rank_gpus: tuple[tuple[int, int], ...] = ()
    # TensorRT-LLM's `Loaded engine size: 8745 MiB` (the engine plan one rank deserialised onto its GPU): (MiB, line) of
    # the largest such line.
    engine_size: tuple[int, str] | None = None
    # llama.cpp's failed mlock (GGML_MLOCK_FAILED): (the bytes it had locked and tried to lock, line); None where none.
    mlock_failed: tuple[int, str] | None = None

    def ranks_sharing_a_gpu(self) -> tuple[tuple[str, str, tuple[int, ...], tuple[str, ...]], ...]:
        """The GPUs on which two or more ranks of one communicator sit: (host, the GPU's bus ID in sysfs form, the
        ranks, their comm lines), from NCCL's `comm 0x.. rank R nranks N cudaDev D nvmlDev D busId B commId 0x..`
        lines. Only a commId (NCCL >= 2.18) ties lines to one communicator: without it, a rank's TP group and its DP
        group of the same size are told apart by nothing, and one GPU holds a rank of each."""
        seats: dict[tuple[str, str, str], dict[int, str]] = {}
        for host, _pid, rank, _n, comm, line in self.comm_members:
            bus = _BUS_ID.search(line)
            if not comm or not host or bus is None:
                continue
            seats.setdefault((comm, host, from_nccl_bus_id(bus.group(1))), {}).setdefault(rank, line)
        return tuple((host, bdf, tuple(sorted(ranks)), tuple(ranks[r] for r in sorted(ranks)))
                     for (_, host, bdf), ranks in seats.items() if len(ranks) >= 2)

    def nearest_nets(self) -> dict[str, tuple[str, str]]:
        """Each GPU of the path dump's nearest network device (NET, path type), as TopoMatrix.nearest_nics reads
        the matrix's NIC columns."""
        nearest: dict[str, tuple[str, str]] = {}
        for gpu, net, kind in self.gpu_nets:
            if gpu not in nearest or link_rank(kind) < link_rank(nearest[gpu][1]):
                nearest[gpu] = (net, kind)
        return nearest

    def nets_trimmed(self) -> tuple[str, ...]:
        """The path dump's lines that show NCCL dropped every network device, or () where the dump does not show it.

        NCCL prints its topology after graph/paths.cc ncclTopoTrimSystem, which removes every NET where the GPUs left
        on this node are all the communicator's ranks (`system->nodes[GPU].count == comm->nRanks`): a GPU line that
        reaches the CPUs and lists no NET shows that communicator whole on this node. Not where any line lists a NET,
        nor where the log shows a communicator with more ranks than the GPUs the dump lists.
        Without such lines, the topology tree's NIC shown whole with no NET under it (NcclTopoTree.bare_nics) shows
        the same trim (ncclTopoTrimSystem keeps the NIC node), where the tree lists no NET and names at least the
        communicator's ranks (corpus 2262)."""
        tree = self.topo_tree
        if not self.netless_path_lines:
            if tree is None or not tree.bare_nics or tree.nets or self.gpu_nets:
                return ()
            return tree.bare_nics if self.comm_ranks <= len(tree.named_gpus()) else ()
        listed = {g for pair in self.gpu_paths for g in pair[:2]} | {
            m.group(1).lower() for line in self.netless_path_lines if (m := _PATH_DUMP.search(line))}
        return self.netless_path_lines if self.comm_ranks <= len(listed) else ()

    def gpu_cpu_nodes(self) -> tuple[tuple[str, str, str, str], ...]:
        """The CPU node NCCL puts each GPU under, as (the line's host name, GPU bus id, `CPU/1`, the line that shows
        it): from the topology tree (the CPU root a GPU's block hangs under) and the path dump (ServingLog.gpu_homes),
        the tree first. NCCL's CPU nodes are the NUMA nodes sysfs gives the devices (graph/xml.cc reads each one's
        `numa_node`); a root whose id is no NUMA id (`CPU/FFFFFFFFFFFFFFFF`, a device that reports -1) is left out."""
        tree = self.topo_tree
        placed: dict[tuple[str, str], tuple[str, str, str, str]] = {}
        pairs: list[tuple[str, str, str]] = []
        if tree is not None:
            lines = dict(zip(tree.gpus, tree.lines, strict=False))
            pairs = [(gpu, cpu, lines.get(gpu, "")) for gpu, cpu in tree.gpu_cpus
                     if len(cpu.split("/")[-1].split("-")[-1]) <= 4]
        for gpu, cpu, line in [*pairs, *self.gpu_homes]:
            host = m.group(1) if (m := _NCCL_HOST.match(line)) is not None else ""
            placed.setdefault((host, gpu), (host, gpu, cpu, line))
        return tuple(placed.values())

    def gdr_far(self) -> tuple[str, ...]:
        """NCCL's lines that it turned GPU Direct RDMA off for a GPU by its distance to the NIC."""
        return tuple(d.line for d in self.gdr if d.gpu and not d.enabled)

    def gdr_works(self) -> tuple[str, ...]:
        """NCCL's lines that an RDMA NIC reaches GPU memory, or () where an RDMA HCA's line says one does not.

        A GPU's `Enabled` line, an RDMA HCA's `Enabled` line and a `GDRDMA` channel each say so (the worse line wins).
        """
        if self.gdr_unsupported():
            return ()
        lines = [d.line for d in self.gdr if d.enabled and (d.gpu or d.rdma)]
        return tuple(lines + [c.line for c in self.channels if c.gdr])[:2]

    def efa_lines(self) -> tuple[str, ...]:
        """The lines that show an AWS EFA device at work under NCCL (EFA_SIGHTED): an RDMA NIC of this job's hosts."""
        return tuple(line for line in self.nccl_net if EFA_SIGHTED.search(line))

    def ofi_platform(self) -> tuple[str, str, str] | None:
        """What aws-ofi-nccl's first platform line (OFI_PLATFORM) names: (the instance type, the topology file the plugin
        handed NCCL for it, or "" where the job had set NCCL_TOPO_FILE itself, the line); None where no line does."""
        for line in self.nccl_net:
            if "NET/OFI Running on" in line and (m := OFI_PLATFORM.search(line)):
                platform = _OFI_FAMILIES.get(m.group("platform"), m.group("platform"))
                return platform, "" if m.group("own") else m.group("file"), line.strip()[:300]
        return None

    def net_plugins(self) -> dict[str, tuple[str, str]]:
        """Per host, the network plugin NCCL's lines say it took: ("internal", line) where it found no
        libnccl-net.so (_INTERNAL_NET), else (the plugin's library or name, line) where it loaded one (_EXTERNAL_NET);
        a host whose lines say both took the one it loaded. Lines without a host name are left out."""
        taken: dict[str, tuple[str, str]] = {}
        for line in self.nccl_net:
            host = _NCCL_HOST.match(line)
            if host is None:
                continue
            if m := _EXTERNAL_NET.search(line):
                taken[host.group(1)] = ((m.group(1) or m.group(2)).strip(), line)
            elif _INTERNAL_NET.search(line) and host.group(1) not in taken:
                taken[host.group(1)] = ("internal", line)
        return taken

    def net_plugins_differ(self) -> tuple[str, ...]:
        """One line a host for the hosts of this log whose NCCL took different network plugins (one its internal
        network, another a libnccl-net.so; or two libraries): () where the lines show one plugin, or one host."""
        taken = self.net_plugins()
        if len(taken) < 2 or len({plugin for plugin, _ in taken.values()}) < 2:
            return ()
        return tuple(line for _, line in taken.values())

    def tcp_plugin(self) -> tuple[str, ...]:
        """The lines that show NCCL's network is a net plugin over TCP (TCP_NET_PLUGIN: FastSocket)."""
        return tuple(line for line in self.nccl_net if TCP_NET_PLUGIN.search(line))

    def gdr_unsupported(self) -> tuple[str, ...]:
        """NCCL's lines that an RDMA HCA cannot reach GPU memory (neither nvidia_peermem nor DMA-BUF)."""
        return tuple(d.line for d in self.gdr if d.rdma and not d.enabled)

    def transports(self) -> set[str]:
        return {c.transport for c in self.channels}

    def net_gdr(self) -> dict[int, bool]:
        """Each rank with a network channel over an RDMA transport (any NET but NET/Socket, or a CollNet plugin's such as
        SHARP's: NcclChannel.rdma), and whether one of its channels says `GDRDMA`.

        NCCL writes `GDRDMA` on a NET channel when it registers the GPU's buffer with the NIC (transport/net.cc,
        `ncclTopoCheckGdr`). It does so only where the NIC can reach GPU memory (nvidia_peermem or DMA-BUF,
        net_ib/gdr.cc) and the GPU-NIC path is within NCCL_NET_GDR_LEVEL (default PXB, graph/paths.cc). A send
        channel may lack it where GDR reads are off (NCCL_NET_GDR_READ), so a rank counts as using GDR if any of its
        channels does.
        """
        ranks: dict[int, bool] = {}
        for c in self.channels:
            if c.rdma:
                ranks[c.local] = ranks.get(c.local, False) or c.gdr
        return ranks

    def gdr_split(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]]:
        """(with, without, lines): on one host, the ranks whose RDMA channels say `GDRDMA` and the ranks whose
        `[receive]` RDMA channels do not (none of theirs does), with the lines that show the latter; ((), (), ())
        where no host shows both. Lines without a host name are left out: they may come from several hosts.

        A receive channel is the one to read: NCCL asks ncclTopoCheckGdr for it with no read condition, while a send
        channel may lack GDRDMA only because GDR reads are off (NCCL_NET_GDR_READ). A rank of the same host whose
        channel says GDRDMA shows the NICs can reach GPU memory there (nvidia_peermem or DMA-BUF are the host's), so
        a receive without it is NCCL keeping that GPU's buffer off the NIC by their distance (NCCL_NET_GDR_LEVEL,
        default PXB: graph/paths.cc). Corpus 778: rank 12 `[receive] via NET/IBext/1/GDRDMA`, rank 8 `[receive]
        via NET/IBext/0`, both on host PHLRR3088.
        """
        by_host: dict[str, dict[int, tuple[bool, bool]]] = {}
        lines: dict[tuple[str, int], str] = {}
        for c in self.channels:
            if not c.rdma or not c.host:  # lines without a host name may come from several hosts
                continue
            seen = by_host.setdefault(c.host, {})
            gdr, bare_receive = seen.get(c.local, (False, False))
            receive_off = c.direction == "receive" and not c.gdr
            seen[c.local] = (gdr or c.gdr, bare_receive or receive_off)
            if receive_off:
                lines.setdefault((c.host, c.local), c.line)
        for host, seen in by_host.items():
            with_gdr = tuple(sorted(r for r, (g, _) in seen.items() if g))
            without = tuple(sorted(r for r, (g, off) in seen.items() if off and not g))
            if with_gdr and without:
                return with_gdr, without, tuple(lines[(host, r)] for r in without)
        return (), (), ()

    def gpus_total(self) -> int | None:
        """How many GPUs the ranks of the log's lines are drawn from, at least; None where no line says.

        A communicator's size (`comm 0x.. rank 0 nranks 16`) counts them where shown. Else a log from one host counts
        the CUDA devices its NCCL lines are tagged with (`leader:523:564 [7] NCCL`), each a GPU of that host the log
        shows: its channel lines name other hosts' ranks too, which are not this host's GPUs. A log from several hosts
        counts the job's ranks by the highest rank its channel lines name (`3[3] -> 10[2]`: 11 ranks at least), since
        a communicator numbers its ranks from 0 without a gap.
        """
        if self.comm_ranks:
            return self.comm_ranks
        if len(self.nccl_hosts) == 1 and self.nccl_devices:
            return len(self.nccl_devices)
        if self.multi_host and self.channels:
            return max(max(c.src, c.dst) for c in self.channels) + 1
        return None

    def ranks_on_one_gpu_bus(self) -> tuple[int, str]:
        """(N, a channel line) where the channel lines name ranks 0 to N-1 (N of 2 or more), each on the GPU of one and
        the same PCI bus ID (`Channel 00 : 0[1a000] -> 1[1a000] via NET/IB/0`); (0, "") otherwise.

        NCCL refuses two ranks of one communicator on one GPU (`Duplicate GPU detected`, init.cc), so ranks on one bus
        ID sit on hosts of their own: each host holds one rank of that communicator. The brackets must hold bus IDs
        (four hex digits or more): NCCL before 2.5 printed the CUDA device index there (`0[0]`), which ranks on one host
        share where each process is given its own GPU as device 0. Every channel must go over the network (NET), as
        channels between hosts do. Every rank number from 0 up must show, so that a cut log of two nodes' same-place
        GPUs (`7[1a000] -> 15[1a000]` of two hosts of eight) is not read as the job.
        NCCL 2.19 and later print the CUDA device index in the brackets again, and mark each NET line `[send]` or
        `[receive]` (`0[0] -> 1[0] [send] via NET/IB/4`, corpus 1956). Ranks of one host connect over P2P or SHM
        there: over NET only where the environment turns both off (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, not set in the
        log), so NET lines of that format on device 0 are ranks of hosts of their own too. Only device 0: a rank on
        another index runs where its process sees more GPUs, as the two-rank communicator of one GPU place across
        nodes of several does (`0[4] -> 1[4] [receive] via NET/IB/4/GDRDMA`, corpus 831)."""
        named = [c for c in self.channels if c.transport != "COLLNET"]
        buses = {g for c in named for g in (c.src_gpu, c.dst_gpu)}
        bus = next(iter(buses)) if len(buses) == 1 else ""
        marked = bool(named) and all(c.direction for c in named) and not any(
            self.nccl_env.get(name, "0") not in ("0", "") for name in ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"))
        if any(c.transport != "NET" for c in named) \
                or not (re.fullmatch(r"[0-9a-f]{4,}", bus) or (marked and bus == "0")):
            return 0, ""
        ranks = {r for c in named for r in (c.src, c.dst)}
        if len(ranks) < 2 or ranks != set(range(len(ranks))):
            return 0, ""
        return len(ranks), named[0].line

    @property
    def multi_host(self) -> bool:
        """The NCCL lines come from two hosts or more (ServingLog.hosts_apart)."""
        return bool(self.hosts_apart())

    def hosts_apart(self) -> tuple[str, ...]:
        """What shows the NCCL lines come from two hosts or more, or () where they do not show it.

        Two host names in the line prefixes (`host:pid:tid [dev] NCCL`) do. One interface name with two addresses
        does too, where the prefixes name one host (hosts named alike, corpus 673): NCCL takes one address per
        interface name (misc/socket.cc findInterfaces), so two addresses are two network stacks.
        """
        if len(self.nccl_hosts) > 1:
            return (f"NCCL lines from hosts {', '.join(self.nccl_hosts[:4])}",)
        seen: dict[str, tuple[str, str]] = {}
        for interface, address, line in self.nccl_addresses:
            first = seen.setdefault(interface, (address, line))
            if first[0] != address:
                return (first[1], line)
        return ()

    def one_node(self) -> tuple[str, ...]:
        """The lines that settle every rank of the run on one node, or () where the log does not.

        vLLM's "Detected 1 nodes in the distributed environment" counts its whole world, as does a torchrun command
        line's `--nnodes` (1 where it is not given). NCCL's `nNodes 1` and a
        communicator whose every rank (`rank R nranks N`, R from 0 to N-1) logs from one host name settle that
        communicator only. So either counts only where it holds at least the ranks the log's parallel sizes ask for
        (TP x PP x DP, vLLM's world_size), and a communicator counts only where every communicator the log shows is
        complete on that host. Else a job whose every rank logs from one host name, each rank in a process and on a
        device of its own, is on one node (one_host_processes). A log with two host names, any count above 1, a tree
        that branches between nodes (tree_branches), or a KV-cache transfer between instances (disaggregated serving)
        settles nothing.
        """
        if self.multi_host or self.kv_transfer or self.tree_branches or any(n > 1 for n, _, _ in self.node_counts):
            return ()
        world = max(self.world_size, (self.tp_size or 1) * (self.pp_size or 1) * (self.dp_size or 1))
        lines = [line for n, ranks, line in self.node_counts if n == 1 and (ranks == 0 or ranks >= world)]
        if lines:
            return tuple(lines[:2])
        # Every communicator size the log shows must show all its ranks from that host: a pipeline group that crosses
        # nodes shows only this node's rank (`rank 0 nranks 2`) beside a complete tensor-parallel group.
        # Communicators are told apart by their commId, else by their size, where each rank number of that size sits in
        # one process (one rank number in two processes shows two groups of that size).
        groups: dict[tuple[str, int], list[tuple[str, int, int, str]]] = {}
        for host, pid, rank, size, comm_id, line in self.comm_members:
            if size > 1:
                groups.setdefault((comm_id, size), []).append((host, pid, rank, line))
        if not groups or max(n for _, n in groups) < max(world, self.comm_ranks):
            return self.one_host_processes(world)
        for (comm_id, size), shown in groups.items():
            if ({r for _, _, r, _ in shown} != set(range(size)) or {h for h, _, _, _ in shown} != set(self.nccl_hosts)
                    or not (comm_id or _one_process_each([(p, r) for _, p, r, _ in shown]))):
                return self.one_host_processes(world)
        largest = max(groups.items(), key=lambda g: g[0][1])[1]
        return tuple(line for _, _, _, line in largest[:2])

    def one_host_processes(self, world: int) -> tuple[str, ...]:
        """What shows a job of N ranks wholly on the one host its NCCL lines name, else ().

        N is the job's size the log shows: its largest communicator (`rank R nranks N`, `[nranks=N]`) or its
        parallel sizes (TP x PP x DP, vLLM's world_size), at least 2.
        The job is whole on its host where that host's NCCL lines come from N processes (`host:pid:tid`) or more.
        Those lines must also be tagged with N CUDA devices or more.
        Each rank is a process of its own with a GPU of its own, so fewer processes or devices leave ranks unseen.
        A device count also keeps apart hosts that share one name, whose device indices repeat.
        It keeps apart two pasted runs of one job too, whose pids differ while their devices do not.
        The comm lines of size N must fit one communicator of N ranks: one commId at most, each rank number in one
        process. Two such communicators are groups of N ranks inside a larger world (pipeline stages across nodes).
        The caller rules out two hosts and node counts above 1 first.
        """
        size = max(world, self.comm_ranks)
        if size < 2 or len(self.nccl_hosts) != 1 or len(self.nccl_pids) < size or len(self.nccl_devices) < size:
            return ()
        shown = [(pid, rank, comm_id) for _, pid, rank, n, comm_id, _ in self.comm_members if n == size]
        if len({c for _, _, c in shown if c}) > 1 or not _one_process_each([(pid, rank) for pid, rank, _ in shown]):
            return ()
        return (f"NCCL lines from {len(self.nccl_pids)} processes on CUDA devices "
                f"{', '.join(map(str, self.nccl_devices[:8]))} of host {self.nccl_hosts[0]}, for a job of {size} "
                "ranks",)

    def ranks_on_one_host(self) -> str:
        """In words, the ranks the log shows where two or more of them (each a process on a CUDA device of its own)
        log from one host name and nothing shows another node (a second host, a node count above 1, a tree that
        branches between nodes, a KV-cache transfer); "" otherwise. Unlike one_node it does not settle the whole job:
        an excerpt may leave out ranks on other nodes, so a caller names that condition (corpus 853, 1238)."""
        if len(self.nccl_hosts) != 1 or self.multi_host or self.kv_transfer or self.tree_branches \
                or any(n > 1 for n, _, _ in self.node_counts) or len(self.nccl_pids) < 2 or len(self.nccl_devices) < 2:
            return ""
        return (f"the NCCL lines of {len(self.nccl_pids)} processes on CUDA devices "
                f"{', '.join(map(str, self.nccl_devices[:8]))} all come from host {self.nccl_hosts[0]}")

    def ranks_in_one_process(self) -> str:
        """In words, where the NCCL lines of two CUDA devices or more all come from one process (one pid of one host
        name: the ranks are threads of one program, as nccl-tests' -g or a single-process launcher runs them); "" where
        they do not. A process drives only the GPUs of its own host, so those ranks share it (corpus 1341)."""
        if len(self.nccl_hosts) != 1 or len(self.nccl_pids) != 1 or len(self.nccl_devices) < 2 or self.multi_host:
            return ""
        return (f"the NCCL lines of CUDA devices {', '.join(map(str, self.nccl_devices[:8]))} all come from one "
                f"process ({self.nccl_pids[0]}) on host {self.nccl_hosts[0]}")

    def nvls_up(self) -> tuple[str, ...]:
        """NCCL's lines that it found NVSwitch multicast (NVLS) on the GPU, or () where the log does not show it.

        NCCL sets NVLS channels only where the CUDA driver reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED on the
        GPU (transport/nvls.cc `ncclNvlsInit`), a feature of GPUs on an NVSwitch fabric. It asks on a CUDA context of
        that GPU, which an NVSwitch GPU gives only once Fabric Manager has configured the fabric (else error 802).
        NCCL_NVLS_ENABLE=1 skips the question, and an NCCL warning about NVLS or multicast says the setup failed:
        both leave (). A log with no such line says nothing.
        """
        if self.nccl_env.get("NCCL_NVLS_ENABLE") == "1" or any(
                re.search(r"NVLS|multicast", w, re.I) for w in self.nccl_warnings):
            return ()
        return self.nvls_lines[:2]

    def no_switch_fabric(self) -> str:
        """Why the engine's own NVML reading shows no NVSwitch fabric, in words; "" where the log does not show it.

        vLLM and SGLang turn their custom all-reduce off "on more than two PCIe-only GPUs" where NVML reports no
        NVLink P2P between some pair of the group (`is_full_nvlink` in custom_all_reduce.py). An NVSwitch board links
        every GPU to every other once Fabric Manager has set the fabric up, and before that CUDA refuses its GPUs
        (error 802), so an engine whose ranks came this far runs on PCIe or bridged cards (corpus 1877).
        """
        line = next((text for code, text in self.custom_ar_disabled if code == AR_PCIE_ONLY), "")
        return f"the engine's NVML reading found its GPUs PCIe-only (\"{line.strip()[:160]}\")" if line else ""

    def nvls_refused(self) -> tuple[str, ...]:
        """NCCL's warnings that CUDA refused its NVLS buffers (`transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid
        argument'`; older releases print no number), at most two; () where the log shows none.

        NCCL reaches that setup (nvlsAllocateMem: the multicast object, its devices, its bound memory) only where the
        driver reports multicast support. NCCL's maintainers trace the refusal to an NVSwitch fabric left stale by a
        Fabric Manager restart without a GPU reset (NVIDIA/nccl#976, #1338, #1488), and it also came from NCCL 2.26.2
        on a R535 driver, fixed in 2.26.5 (pytorch/pytorch#150852): a known cause, not a proof of one.
        """
        return tuple(w for w in self.nccl_warnings if _NVLS_REFUSED.search(w))[:2]

    def nvls_refused_by_nccl_2_26(self) -> bool:
        """Whether the NCCL whose NVLS buffers CUDA refused (nvls_refused) is of the 2.26 series: its banner says so
        (`NCCL version 2.26.2+cuda12.8`), or, without a banner, the WARN is at `transport/nvls.cc:254`, the line of
        cuMulticastBindMem in NCCL 2.26.2 to 2.26.6 (NVIDIA/nccl's tags; 2.18.5 has it at 165, 2.21.5 at 158, 2.23.4
        at 244). That series failed alike on a R535 driver (pytorch/pytorch#150852, corpus 378), a cause
        other than the NVSwitch fabric that the log cannot rule out.
        """
        if self.nccl_version:
            return self.nccl_version.startswith("2.26.")
        return any(_NVLS_REFUSED_2_26.search(w) for w in self.nvls_refused())

    def shared_shm(self) -> tuple[str, ...]:
        """The lines that show every rank of vLLM's world opening one shared-memory segment, else ().

        vLLM counts nodes by which ranks can open the shared-memory segment its rank 0 creates
        (parallel_state.py `in_the_same_node_as`, Python's multiprocessing.shared_memory under /dev/shm). One node
        of two or more ranks says every rank opened it: they share one /dev/shm, one IPC namespace.
        A message-queue handle with no remote reader (shm_broadcast.py) says the same of its writer and readers,
        which all attach the writer's segment; it counts where it holds the log's whole world (TP x PP x DP where
        the log shows them) and no other handle is as large, since the handle of one group says nothing of the
        others.
        """
        return tuple(line for _, line in self._shm_groups())[:2]

    def shm_ranks(self) -> int:
        """How many ranks the lines of shared_shm() put on one shared-memory segment (0: none shown)."""
        return max((n for n, _ in self._shm_groups()), default=0)

    def _shm_groups(self) -> list[tuple[int, str]]:
        world = max(self.world_size, (self.tp_size or 1) * (self.pp_size or 1) * (self.dp_size or 1))
        counted = [(self.world_size, line) for n, _, line in self.node_counts
                   if n == 1 and _VLLM_NODES.search(line) and self.world_size >= 2]
        # Two handles of the largest size are two groups (pipeline stages), each of a part of the world.
        largest = [n for n, _ in dict.fromkeys(self.mq_shared)]
        top = max(largest, default=0)
        if largest.count(top) > 1:
            return counted
        return counted + [(n, line) for n, line in self.mq_shared if n == top and n >= world]

    def p2p_pairs(self) -> tuple[tuple[int, int], ...]:
        """The rank pairs NCCL connected over its P2P transport (`via P2P/IPC`, `P2P/CUMEM`, `P2P/direct pointer`),
        each once, lowest rank first.

        NCCL logs such a line after the connect step succeeded: peer access between the two GPUs was enabled
        (`cudaDeviceEnablePeerAccess`, p2pCanConnect in transport/p2p.cc) and the peer's buffer was mapped (a
        CUDA IPC or cuMem handle opened). It is set-up: it does not show data crossing the pair.
        """
        return tuple(sorted({(min(c.src, c.dst), max(c.src, c.dst)) for c in self.channels
                             if c.transport == "P2P" and c.src != c.dst}))

    @property
    def driver_p2p_refusal(self) -> str:
        """The line that shows the engine took the driver's report as its whole P2P gate and found no P2P in it:
        vLLM's "Skipping P2P check and trusting the driver's P2P report", or a "lacks GPU P2P capability" line in the
        wording of the releases that had no real P2P test (_AR_DRIVER_ONLY); "" where neither is shown."""
        if self.p2p_check_skipped:
            return self.p2p_check_skipped
        return next((line for reason, line in self.custom_ar_disabled
                     if reason == AR_NO_P2P and _AR_DRIVER_ONLY.search(line)), "")

    def ipc_group(self) -> tuple[int, ...]:
        """The ranks of a one-host NCCL log when its SHM and P2P channels join every rank it shows into one
        group, or of a log from several named hosts when each rank it shows has an SHM or P2P channel; () otherwise
        (fewer than two ranks, or a rank reached only over NET).

        NCCL opens SHM and P2P only between ranks with the same host hash and the same /dev/shm device
        (`shmCanConnect` in transport/shm.cc, `ncclTopoCheckP2p` in graph/paths.cc), so such ranks share
        one IPC namespace.
        A log whose only host is a Docker/Podman container id (the 12 hex digits a container is named by
        default) comes from the processes of that one container, which share its IPC namespace: its channels' ranks,
        or every rank where the log settles the job on that host (container_whole) before any channel line.
        A log whose only host is a Kubernetes pod's name (pod_host) gives every rank where the log settles the job
        in that pod (pod_whole), else the ranks whose processes log from it (pod_ranks): a pod's containers share one
        IPC namespace, and the ranks they reach over NET are other pods'.
        """
        whole = self.pod_whole() or self.container_whole()
        if whole:
            return whole
        own = self.pod_ranks()
        if len(own) >= 2:
            # A pod's own ranks (its name is the host of every line) run in that one pod, whose containers share one
            # IPC namespace; the ranks they reach over NET are other pods'.
            return own
        ranks = {r for c in self.channels for r in (c.src, c.dst)}
        if len(ranks) < 2 or (self.multi_host and not self.nccl_hosts):
            return ()
        if self.container_host():
            return tuple(sorted(ranks))
        group = {r: r for r in ranks}

        def root(r: int) -> int:
            while group[r] != r:
                r = group[r]
            return r

        for c in self.channels:
            if c.transport in ("SHM", "P2P"):
                group[root(c.src)] = root(c.dst)
        if self.multi_host:
            # Ranks on several hosts (their names in the line prefixes): where each host's SHM and P2P channels join
            # the ranks it logs into one group, that group shares the host's namespace, and NET joins the hosts. A
            # rank seen only over NET may sit on a host of its own or be cut off from its neighbours' /dev/shm, and
            # two groups on one host may be two namespaces: no verdict then.
            local = [c for c in self.channels if c.transport in ("SHM", "P2P")]
            per_host: dict[str, set[int]] = {}
            for c in local:
                per_host.setdefault(c.host, set()).update((c.src, c.dst))
            joined = [r for members in per_host.values() for r in members]
            if (len(per_host) < 2 or "" in per_host or set(joined) != ranks or len(joined) != len(ranks)
                    or any(len({root(r) for r in members}) != 1 for members in per_host.values())):
                return ()
            return tuple(sorted(ranks))
        return tuple(sorted(ranks)) if len({root(r) for r in ranks}) == 1 else ()

    def container_host(self) -> str:
        """The one host of the NCCL lines when it is a container's default hostname (its id), else ""."""
        one = self.nccl_hosts[0] if len(self.nccl_hosts) == 1 else ""
        return one if CONTAINER_HOSTNAME.fullmatch(one) else ""

    def container_processes(self) -> str:
        """In words, where the NCCL lines of two processes or more all come from one container's default hostname (its
        id: container_host); "" otherwise. The processes of one container share its IPC namespace whichever CUDA device
        each names (a rank that CUDA_VISIBLE_DEVICES gives one GPU calls it device 0: corpus 1883)."""
        if not self.container_host() or len(self.nccl_pids) < 2:
            return ""
        return (f"the NCCL lines of {len(self.nccl_pids)} processes all come from container {self.container_host()} "
                "(its id, a container's default hostname)")

    def pod_whole(self) -> tuple[int, ...]:
        """Every rank of a job of two or more, where all of them log from the one pod the NCCL lines name (pod_host)
        and the log settles the job on that one host (one_node: `nNodes 1`, every `rank R nranks N` shown); ()
        otherwise. A pod's hostname is its own name, which no other pod has, and its containers share one IPC
        namespace."""
        if not self.pod_host() or not self.one_node():
            return ()
        size = max(self.comm_ranks, self.world_size, (self.tp_size or 1) * (self.pp_size or 1) * (self.dp_size or 1))
        return tuple(range(size)) if size >= 2 else ()

    def container_whole(self) -> tuple[int, ...]:
        """Every rank of a job of two or more, where all of them log from the one container the NCCL lines name
        (container_host: its id as its default hostname) and the log settles the job on that one host (one_node:
        `nNodes 1`, every `rank R nranks N` shown); () otherwise. The processes of one container share its IPC
        namespace, whether or not the log reaches NCCL's channel lines (corpus 1702: Horovod's three ranks under
        Open MPI, cut after their `rank R nranks 3` lines)."""
        if not self.container_host() or not self.one_node():
            return ()
        size = max(self.comm_ranks, self.world_size, (self.tp_size or 1) * (self.pp_size or 1) * (self.dp_size or 1))
        return tuple(range(size)) if size >= 2 else ()

    def pod_ranks(self) -> tuple[int, ...]:
        """The ranks of the processes that log from the one pod the NCCL lines name (pod_host): the sending rank
        of each channel line, the receiving one of a `[receive]` line; () where the host is no pod's name."""
        if not self.pod_host():
            return ()
        return tuple(sorted({c.dst if c.direction == "receive" else c.src for c in self.channels}))

    def pod_host(self) -> str:
        """The one host of the NCCL lines when it is a Kubernetes pod's name (POD_HOSTNAME), else ""."""
        one = self.nccl_hosts[0] if len(self.nccl_hosts) == 1 else ""
        return one if is_pod_name(one) else ""


def _one_process_each(pairs: list[tuple[int, int]]) -> bool:
    """Whether (process, rank) pairs put each rank number in one process (a process may hold several ranks: one
    nccl-tests process drives every GPU of its run)."""
    unique = set(pairs)
    return len(unique) == len({r for _, r in unique})


# A container's default hostname: the first 12 hex digits of its id (Docker, Podman).
CONTAINER_HOSTNAME = re.compile(r"[0-9a-f]{12}")
# A Kubernetes pod's hostname, which is its name unless the pod runs in the node's network (hostNetwork: then the
# node's name): a Job's or a ReplicaSet's pod is named by its owner's name, `-`, and five characters the API server
# draws from k8s.io/apimachinery's rand alphabet `bcdfghjklmnpqrstvwxz2456789` (no vowels, no 0, 1 or 3):
# `task-7701-z5h6w` (corpus 1314), `nccl-test-545c9b9fd4-dvp4k` (corpus 384), `leader-h2nng` (corpus 1238). A machine's
# own name rarely ends in five such characters with a digit and a letter among them: `dev01`, `gpu42` and `h100x` each
# hold a vowel or a 0, 1 or 3; POD_SUFFIX asks for both so an all-consonant word (`-strng`) is no pod.
POD_HOSTNAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?-([bcdfghjklmnpqrstvwxz2456789]{5})")
_POD_SUFFIX = re.compile(r"(?=.*[2456789])(?=.*[a-z])")
# A pod its user named as one: `pod` a whole word of the name (`h100-pod`, corpus 400; `demo-ai-xtuner-pod`, corpus
# 856; `udf-pod-32018-0-7603cf5fec6ff1e5`, corpus 579). A machine's name rarely calls it a pod; a data-centre pod of
# racks numbers the word (`pod1-dgx01`, `superpod-node01`: no whole word `pod`).
POD_WORD = re.compile(r"(?:[a-z0-9][a-z0-9.]*-)*pod(?:-[a-z0-9][a-z0-9.]*)*")
# A training operator's pod (Kubeflow's PyTorchJob / MPIJob, Volcano): the job's name, the replica's role and its
# index, `job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0` (corpus 1368, NVIDIA/nccl#1538),
# `kubeflow-pytorch-gpu-dist-job-master-0` (kubeflow/pytorch-operator#202). A machine may be named so too
# (`gpu-worker-3`, `k8s-master-0`), so the job's part must show it is a job: the whole word `job`, or an id the
# operator's user drew (a UUID, or a run of 8 or more hex digits holding a digit and a letter).
OPERATOR_POD = re.compile(r"(?P<job>[a-z0-9][a-z0-9.-]*)-(?:worker|master)-\d+")
# A KubeRay cluster's pod: the RayCluster's name, the head's role and the pod's random suffix
# (`qwen3-235b-cluster-head-nnrdn`, corpus 2577), or a worker group's pod (`raycluster-worker-gpu-group-x7q2k`). Its
# role word before the suffix marks it as a pod where the suffix holds no digit.
RAY_POD = re.compile(r"[a-z0-9][a-z0-9.-]{0,60}-(?:head|worker(?:-[a-z0-9]{1,30}){0,3})-[bcdfghjklmnpqrstvwxz2456789]{5}")
_JOB_MARK = re.compile(r"(?:^|-)job(?:-|$)|(?:^|-)(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?:-|$)")


def is_pod_name(name: str) -> bool:
    """Whether a hostname is a Kubernetes pod's generated name (POD_HOSTNAME) or one that calls itself a pod
    (POD_WORD).

    >>> is_pod_name("task-7701-z5h6w"), is_pod_name("lax-ai-vllm-model-78d9c658c8-qlw8z")
    (True, True)
    >>> is_pod_name("h100-pod"), is_pod_name("udf-pod-32018-0-7603cf5fec6ff1e5")
    (True, True)
    >>> is_pod_name("tj5-sc-ai-h800r-dev01"), is_pod_name("node-gpu42"), is_pod_name("build-strng")
    (False, False, False)
    >>> is_pod_name("pod1-dgx01"), is_pod_name("superpod-node01")
    (False, False)
    >>> is_pod_name("job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0")
    True
    >>> is_pod_name("kubeflow-pytorch-gpu-dist-job-master-0"), is_pod_name("gpu-worker-3"), is_pod_name("k8s-master-0")
    (True, False, False)
    >>> is_pod_name("qwen3-235b-cluster-head-nnrdn"), is_pod_name("gpu-head-node"), is_pod_name("ray-head-01")
    (True, False, False)
    """
    m = POD_HOSTNAME.fullmatch(name)
    if (m is not None and _POD_SUFFIX.match(m.group(1)) is not None) or POD_WORD.fullmatch(name) is not None:
        return True
    if RAY_POD.fullmatch(name) is not None:
        return True
    op = OPERATOR_POD.fullmatch(name)
    return op is not None and _JOB_MARK.search(op.group("job")) is not None


# NCCL before 2.5 wrote `Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory` (its SHM transport).
_CHANNEL = re.compile(
    r"(?:Channel|Ring) (\d+(?:/\d+)?)\s*:\s*(\d+)\[([0-9a-fA-Fx]+)\]\s*->\s*(\d+)\[([0-9a-fA-Fx]+)\]"
    r"(?:\s*\[(send|receive)\])?\s*via\s+([A-Za-z][A-Za-z0-9]*)(?:/(\S+(?: pointer)?))?")
# NCCL transport/coll_net.cc: `CollNet %02d/%1d : %d [send|receive] via COLLNET/%s/%d%s`, the rank's own channel to a
# CollNet plugin (SHARP: `CollNet 05/0 : 5 [receive] via COLLNET/SHARP/5/GDRDMA`, NVIDIA/nccl#1219, corpus 1415); no
# peer rank: the line names the rank that printed it.
_COLLNET_CHANNEL = re.compile(r"CollNet (\d+(?:/\d+)?)\s*:\s*(\d+)\s*\[(send|receive)\]\s*via\s+COLLNET/(\S+)")
# The host before `:pid:tid [dev] NCCL`, after an optional logger prefix (`2024-.. - INFO - `), a
# Ray/vLLM worker prefix (`(RayWorkerWrapper pid=12, ip=10.0.0.2) `, `(VllmWorker rank=1 pid=7) `)
# or an mpirun rank tag (`[1] `); NVIDIA/nccl#1232, NVIDIA/nccl#1672. A log viewer's frame (`│ `, k9s's and kubectl
# view's column, corpus 1314) may stand before it all.
# Open MPI's `--tag-output` prefix (MPI_TAG, `[1,9]<stdout>:`: job, rank and stream) may stand before the host
# (corpus 1580).
# NCCL 2.2's warnings put their source file where `NCCL` stands (NCCL_OLD_WARN: `e66aa18dc444:3171:3171 [0]
# include/socket.h:311 WARN ...`).
# Which network plugin NCCL took on a host: its internal network, where it found no net plugin library (`NET/Plugin:
# Could not find: libnccl-net.so. Using internal network plugin.`, NCCL 2.19 on; `NET/Plugin : No plugin found
# (libnccl-net.so), using internal implementation` before, corpus 1106, 1369; `NET/Plugin : No plugin found
# (libnccl-net.so).` in NCCL 2.4, NVIDIA/nccl#224); or a plugin it loaded, by the library's
# path (`Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so`, the RDMA/SHARP plugin's line, corpus
# 1195) or its name (`NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)`).
_PLUGIN_PATH = re.compile(r"NCCL INFO Plugin Path\s*:\s*\S+")
_INTERNAL_NET = re.compile(r"NET/Plugin\s*:.*(?:\busing internal (?:network plugin|implementation)|"
                           r"No plugin found \(libnccl-net\.so\)\.?\s*$)", re.I)
_EXTERNAL_NET = re.compile(r"NCCL INFO Plugin Path\s*:\s*(\S+)|NET/Plugin\s*:\s*Loaded net plugin\s+(.+?)\s*$")
MPI_TAG = r"\[\d+,\d+\]<std(?:out|err)>:"
_NCCL_HOST = re.compile(r"^\s*(?:│\s*)?(?:\S+\s+-\s+\w+\s+-\s+)?(?:\([^()]*\)\s+|\[\d+\]\s+)*"
                        rf"(?:{MPI_TAG})?"
                        r"([^\s:()\[\]]+):(\d+):\d+\s+\[(\d+)\]\s+(?:NCCL|[\w./]+\.(?:cu|cc|h):\d+ WARN )")


def _written_apart(hosts: list[str], pids: dict[str, set[int]]) -> tuple[str, ...]:
    """The host names of NCCL's line prefixes, less those two processes' writes ran together into: a name that is
    the start of another name shown followed by that whole name (`adp-u` + `adp-us-llm-1-...-s59dl`, corpus 1238),
    whose processes all log under that name too: one host's prefix cut by another process's line, not a second
    host."""
    return tuple(h for h in hosts if not any(
        o != h and h.endswith(o) and o.startswith(h[:len(h) - len(o)]) and pids.get(h, set()) <= pids.get(o, set())
        for o in hosts))


# An IP interface in NCCL's `Using` lines: `ibs85f0:192.168.1.10<0>`, `[1]ib0:fe80::1%ib0<0>`, `OOB bond0:10.0.0.3<0>`.
_NCCL_ADDRESS = re.compile(r"(?:^|[\s\]])([A-Za-z][\w.-]*):([^\s<>\[\]]+)<\d+>")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)|using nccl==(\d+\.\d+\.\d+)")
_NCCL_CUDA = re.compile(r"NCCL version \d+\.\d+\.\d+\+cuda(\d+\.\d+)")
# RCCL keeps NCCL's log format and names itself and ROCm in it: `RCCL version 2.20.5+hip6.2` (its banner),
# `NCCL INFO RCCL version : 2.22.3-HEAD:271856d`, `NCCL INFO ROCr version 1.1` (ROCm's runtime), and warnings from
# its hipified sources (`.../rccl/build/hipify/src/init.cc:136 NCCL WARN ...`): https://github.com/ROCm/rccl.
_RCCL = re.compile(r"\bRCCL version\b|\bNCCL INFO ROCr version\b|/rccl/(?:build/)?hipify/")
# NCCL src/init.cc: INFO "cudaDriverVersion %d" (cudaDriverGetVersion: 1000 * major + 10 * minor).
_DRIVER_CUDA = re.compile(r"\bcudaDriverVersion (\d{4,6})\b")
_LOCAL_RANKS = re.compile(r"\blocalRanks (\d+)")
# `comm 0x.. rank 0 nranks 1 cudaDev 0 ...` (init) and `comm 0x.. [nranks=1] stream ...` (a collective's trace).
_BUS_ID = re.compile(r"\bbusId ([0-9a-fA-F]+)\b")
_COMM_RANKS = re.compile(r"\bcomm 0x[0-9a-f]+ (?:rank (\d+) nranks (\d+)|\[nranks=(\d+)\])", re.I)
# NCCL init.cc `comm %p rank %d nRanks %d nNodes %d localRanks %d`, and vLLM's node count (parallel_state.py).
_NNODES = re.compile(r"\bnRanks (\d+) nNodes (\d+)\b")
# NCCL's GPU Direct RDMA lines (GdrDecision): a GPU's (`GPU 18000`, `GPU 0[0]` in NCCL 2.4, a rank from 2.26) and an
# HCA's (`NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)`, `(DMABUF) enabled`).
_GPU_AFFINITY = re.compile(r"NCCL INFO Setting affinity for GPU (\d+) to ([0-9a-fA-F]+(?:[,-][0-9a-fA-F]+)*)")
_GDR_GPU = re.compile(r"GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\S+) \(distance \d+ [<>]=? \d+\)", re.I)
_GDR_HCA = re.compile(r"NET/([\w. ]+?)\s*:\s*GPU Direct RDMA (?:\(\w+\) )?(Enabled|Disabled) for HCA (\d+(?: '[^']*')?)",
                      re.I)
_COMM_ID = re.compile(r"\bcommId (0x[0-9a-f]+)")
# One channel's tree in NCCL's `Trees [0] 17/24/-1->16->0 [1] ...` line (init.cc): its second and third child.
_TREE = re.compile(r"\[\d+\] -?\d+/(-?\d+)/(-?\d+)->\d+->-?\d+")
_VLLM_NODES = re.compile(r"\bDetected (\d+) nodes in the distributed environment")
_VLLM_WORLD = re.compile(r"\bworld_size=(\d+) rank=\d+ local_rank=")
# vLLM's message-queue handle (shm_broadcast.py `Handle(...)`): its local readers, and the remote subscribe
# address (port before v0.8) that is None where no reader sits on another node.
_MQ_HANDLE = re.compile(r"\bHandle\((?:connect_ip=[^,]*, )?local_reader_ranks=\[([\d,\s]*)\].*?"
                        r"\bremote_subscribe_(?:addr|port)=(None\b)?")
# The torch.distributed launcher's command line (`torchrun --nproc-per-node=2 test.py`) and its `--nnodes` value
# (`2`, or an elastic `MIN:MAX`); without `--nnodes` it starts every rank on this node (its default is `1:1`).
_TORCHRUN = re.compile(r"\btorchrun(?:\s+--?\w[\w-]*(?:[= ][^\s-]\S*)?)*\s+\S+\.py\b")
_TORCHRUN_NNODES = re.compile(r"\s--nnodes[= ](\S+)")
# A KV-cache transfer between engine instances named in a config dump (disaggregated prefill/decode).
_KV_TRANSFER = re.compile(r"kv_transfer_config['\"]?\s*[=:]\s*(?!None)\S|KVTransferConfig\(|NixlConnector|"
                          r"MooncakeConnector|disaggregation_mode['\"]?\s*[=:]\s*['\"](?:prefill|decode)", re.I)
# vLLM's Ray executor (ray_utils.py _verify_bundles): a TP group larger than one node's reserved GPUs.
_TP_BEYOND_NODE = re.compile(r"\btensor_parallel_size=(\d+) is bigger than a reserved number of \w+? \((\d+) \w+\) in a node")
# NCCL init.cc `%d coll channels, [%d collnet channels, ]%d nvls channels`; transport/nvls.cc `NVLS multicast support
# is %savailable on dev %d` and, once it sets up its buffers, `NVLS comm %p headRank %d nHeads %d buffSize ...`;
# graph/connect.cc connectNvls `NVLS Head %2d: %2d %2d ...` (a job over several nodes: the NVLS heads of each node,
# printed only where the NVLS graph found heads, which NCCL searches only on a comm with nvlsSupport).
_NVLS_UP = re.compile(r"\b[1-9]\d* nvls channels\b|NVLS multicast support is available on dev|"
                      r"\bNVLS comm 0x[0-9a-f]+ headRank \d+ nHeads [1-9]|\bNVLS Head +\d+:(?: +\d+)+\s*$")
# NCCL's network code says the device selectors it was given in its own words too: net_ib.cc `NCCL_IB_HCA set to %s`,
# socket.cc `NCCL_SOCKET_IFNAME set to %s` (a value from the environment or nccl.conf, corpus 1529).
# cudawrap.cc names NCCL_CUDA_PATH's value where it finds no CUDA library there (`Failed to find CUDA library in
# /usr/local/cuda-11.7 (NCCL_CUDA_PATH=/usr/local/cuda-11.7)`, corpus 1106): a variable set, in NCCL's words.
_NCCL_ENV = re.compile(r"\b(NCCL_[A-Z0-9_]+) set by environment to (\S+)"
                       r"|\b(NCCL_IB_HCA|NCCL_SOCKET_IFNAME) set to (\S+)"
                       r"|\bFailed to find CUDA library in \S+ \((NCCL_CUDA_PATH)=([^)\s]+)\)")
_TP = re.compile(r"\b(?:tensor_parallel_size|tp_size)=(\d+)|['\"]tensor[_-]parallel[_-]size['\"]:\s*(\d+)"
                 r"|\bengine_args\.tensor_parallel_size: (\d+)"  # FastChat's vLLM worker
                 # lmdeploy: its engine config (`backend_config=TurbomindEngineConfig(dtype='float16', model_format=None,
                 # tp=2, ...)`, PytorchEngineConfig the same) and TurboMind's model config (TURBOMIND_CONFIG_OPEN: INI
                 # `tensor_para_size = 2`, JSON `"tensor_para_size": 2`). Its `tp=0` beside `dp=32` (lmdeploy#3414)
                 # states no TP size: parse_serving_log reads only a size of 1 or more.
                 r"|\b(?:Turbomind|Pytorch)EngineConfig\([^()]*?\btp=(\d+)|\btensor_para_size['\"]?\s*[=:]\s*(\d+)")
# The GPUs a launcher gives one model: Xinference's worker line (facts/model_placement.XINFERENCE_GPU_INDEX: `You
# specify to launch the model: bge-reranker-v2-m3 on GPU index: [2] of the worker: ...`) and its launch arguments
# (`gpu_idx=[3, 4]`, `'gpu_idx': [3, 4]`; corpus 1498): a model given one GPU runs on it alone, TP 1.
_GPU_IDX_ARG = re.compile(r"\bgpu_idx['\"]?\s*[=:]\s*\[(?P<idx>\d+(?:, *\d+)*)\]")
# vLLM prints pipeline_parallel_size in its engine-config line and both in `non-default args: {...}`;
# SGLang's ServerArgs has pp_size and dp_size.
_PP = re.compile(r"\b(?:pipeline_parallel_size|pp_size)=(\d+)|['\"]pipeline_parallel_size['\"]:\s*(\d+)")
_DP = re.compile(r"\b(?:data_parallel_size|dp_size)=(\d+)|['\"]data_parallel_size['\"]:\s*(\d+)")
_EAGER = re.compile(r"\benforce_eager\s*[=:]\s*['\"]?(True|False)|\bdisable_cuda_graph\s*=\s*(True|False)|"
                    # the engine's args as a dict, Dynamo's service config in vLLM's flag names (`'enforce-eager': True`)
                    r"['\"]enforce[_-]eager['\"]:\s*(True|False)|\bEnforce Eager Mode = (True|False)")
# The line of a launcher or engine that sets OMP_NUM_THREADS in each worker it starts, the value in group 1 or 2:
# torch.distributed's (torch/distributed/run.py), and vLLM's own where the variable is not set in its environment
# (multiproc_gpu_executor.py, multiproc_worker_utils.py: "Reducing Torch parallelism from 52 threads to 1").
_LAUNCHER_OMP = re.compile(r"Setting OMP_NUM_THREADS environment variable for each process to be (\d+)|"
                           r"Reducing Torch parallelism from \d+ threads to (\d+)\b")
# vLLM's line of those: it sets the value only where OMP_NUM_THREADS is not in its environment.
VLLM_OMP_REDUCED = "Reducing Torch parallelism"
# Custom all-reduce registering the buffers of the CUDA graphs just captured (vLLM's and SGLang's custom_all_reduce.py:
# capture() calls register_graph_buffers as the capture context closes, which logs `Registering N cuda graph
# addresses`; a traceback through it, corpus 2451): the engine captured its CUDA graphs.
_AR_GRAPH_BUFFERS = r"Registering \d+ cuda graph addresses|custom_all_reduce\.py\", line \d+, in register_graph_buffers\b"
_DISABLE_AR = re.compile(r"\bdisable_custom_all_reduce\s*[=:]\s*['\"]?(True|False)|"
                         r"['\"]disable_custom_all_reduce['\"]:\s*(True|False)")
_GRAPH_CAPTURED = re.compile(r"Capturing CUDA ?graph|CUDA graphs can take additional|Graph capturing finished|"
                             r"Capture cuda graph (?:begin|end)|Capturing batches \(|CUDA graph warmup for batch size=|"
                             + _AR_GRAPH_BUFFERS, re.I)
# TensorRT-LLM's PyTorch backend warms each batch size's CUDA graph up in turn, largest first (pyexecutor
# model_engine.py: `Run generation only CUDA graph warmup for batch size=170`): the line of a second size says the first
# one's capture finished (corpus 2271).
_TRTLLM_GRAPH_WARMUP = re.compile(r"\bCUDA graph warmup for batch size=(\d+)")
# Of those, the lines that say the capture finished (vLLM's summary, SGLang's end line, a progress bar at 100%);
# the others only say it began, and a capture can hang or fail (corpus 217's thread). The server coming up after a
# begun capture says it finished too (both engines capture before they serve).
_GRAPH_FINISHED = re.compile(r"Graph capturing finished|Capture cuda graph end|"
                             r"Captur(?:ing|e) (?:batches|CUDA graph)[^:]*:\s*100%|" + _AR_GRAPH_BUFFERS, re.I)
_SERVER_READY = re.compile(r"Application startup complete|The server is fired up and ready to roll", re.I)
# The configuration dumps that settle CUDA graphs: printed after the engine's own overrides, with one switch for
# graphs. vLLM's V0 engine config line (`Initializing an LLM engine (v0.6.6) with config:`, from 0.7.3
# `Initializing a V0 LLM engine (v0.8.3) with config:`, corpus 1887, 1935) and SGLang's server_args. Not vLLM V1's
# (graphs there also hang on compilation_config's level and cudagraph_mode), nor the raw flags (`args: Namespace(`).
# Aphrodite's dump prints a key a line, its eager switch on its own (`INFO:     Enforce Eager Mode = False`, corpus 2372).
_RESOLVED_CONFIG = re.compile(r"Initializing (?:an|a V0) LLM engine \(v[^)]*\) with config:|^\s*INFO:\s+Enforce Eager Mode = |"
                              r"server_args=(?:ServerArgs\(|\{)")
# vLLM V0's engine-config line ends with its compilation_config and a tail only V0's LLMEngine prints (llm_engine.py:
# `Initializing a V0 LLM engine (v0.7.2) with config: ..., compilation_config={..."cudagraph_capture_sizes":[256,248,
# ...,2,1],"max_capture_size":256}, use_cached_outputs=True, `). For V0, VllmConfig._set_cudagraph_sizes fills that list
# only where enforce_eager is off (vllm/config.py from 0.7.0, where the key took that name, vllm-project/vllm#12243, to
# V0's last releases), and V0's worker captures graphs whenever enforce_eager is off (worker.py _warm_up_model): a
# non-empty list there settles graphs on where the paste cuts the line before its enforce_eager (corpus 2240). A user's
# own list in --compilation-config is logged as overriding the model runner's (`cudagraph sizes specified by model
# runner [] is overridden by config [...]`), and vLLM's CPU and XPU platforms turn eager mode on after the list is
# filled (`CUDA graph is not supported on CPU, fallback to the eager mode.`): either line in the source leaves it open.
_V0_CAPTURE_SIZES = re.compile(r'"cudagraph_capture_sizes":\s*\[\s*\d[\d,\s]{0,8000}\][^\n]{0,400}?\buse_cached_outputs=')
_V0_SIZES_DOUBT = re.compile(r"specified by model runner \[\] is overridden by config|fallback to the eager mode")
# vLLM V1's engine config line (`Initializing a V1 LLM engine (v0.8.1) with config: ... enforce_eager=False, ...
# compilation_config={"level":3,...`). Before 0.9, VllmConfig.__post_init__ set use_cudagraph=True and level
# PIECEWISE itself whenever enforce_eager was False, so enforce_eager=False there settles graphs on (corpus 2141).
# From 0.9 the user's use_cudagraph (later cudagraph_mode) stands: only a printed `"use_cudagraph":true` settles it.
_V1_CONFIG = re.compile(r"Initializing a V1 LLM engine \(v(\d+\.\d+[^)\s]*)\) with config:")
V1_FORCES_GRAPHS_BEFORE = "0.9"
_V1_USE_CUDAGRAPH = re.compile(r'"use_cudagraph":\s*(true|false)\b')


def _v1_config_graphs(text: str) -> str:
    """CUDA graphs in vLLM V1's engine config line with enforce_eager=False (_V1_CONFIG): "eager" where it prints
    `"use_cudagraph":false`, "configured" where it prints `"use_cudagraph":true` or names a release before
    V1_FORCES_GRAPHS_BEFORE, "" otherwise (a later release whose line is cut before its graph setting)."""
    m = _V1_CONFIG.search(text)
    if m is None:
        return ""
    use = _V1_USE_CUDAGRAPH.search(text)
    if use is not None:
        return "configured" if use.group(1) == "true" else "eager"
    return "configured" if is_older(m.group(1), V1_FORCES_GRAPHS_BEFORE) is True else ""
# vLLM's `non-default args: {...}` (utils.py / cli_args.py, 0.8.5 and later; every release that prints it captures
# CUDA graphs by default): the flags the user set. A whole dict (closed by its brace) that holds none of these keys
# leaves graphs at that default (corpus 1936); one that holds any of them is read by the other rules or stays open.
# data_parallel_size: vLLM forced eager mode under data parallelism in some releases (corpus 67).
_ARGS_GRAPH_KEYS = ("enforce_eager", "compilation_config", "optimization_level", "cudagraph", "capture_size",
                    "max_seq_len_to_capture", "data_parallel_size")
_NON_DEFAULT_ARGS = re.compile(r"non-default args: (\{.*\})\s*$")
# vLLM's API server before `non-default args` printed every parsed flag with its value (`api_server.py:152] args:
# Namespace(... enforce_eager=False, max_context_len_to_capture=8192, ...)`, 0.2.x to 0.8.x; corpus 1949). Those are
# the flags, not the engine's resolved configuration: graphs stay on where enforce_eager=False leaves vLLM's default
# (on from 0.2.6, the release that added the field), and no other flag shown narrows them (_namespace_keeps_graphs).
_NAMESPACE_ARGS = re.compile(r"\bargs: Namespace\(")
_NAMESPACE_FIELD = re.compile(r"(?<![\w.])(\w+)=([^,()]*)")


def _args_keep_graph_default(text: str) -> bool:
    """A whole vLLM `non-default args: {...}` dict naming no setting of CUDA graphs (_ARGS_GRAPH_KEYS)."""
    m = _NON_DEFAULT_ARGS.search(text)
    if m is None or m.group(1).count("{") != m.group(1).count("}"):
        return False
    keys = re.findall(r"['\"](\w+)['\"]\s*:", m.group(1))
    return bool(keys) and not any(g in k for k in keys for g in _ARGS_GRAPH_KEYS)


def _namespace_keeps_graphs(text: str, version: str) -> bool:
    """Whether vLLM's `args: Namespace(...)` line, with enforce_eager=False, leaves CUDA graphs on (_NAMESPACE_ARGS).
    Not where `compilation_config` is set, or the line is cut where a release that reads it (0.6.5 on,
    versions.FIRST_RELEASE) would print it; not under data parallelism; not where the capture length
    (`max_seq_len_to_capture`, before it `max_context_len_to_capture`) is below `max_model_len`: longer sequences
    run eagerly, which the command-line rule judges."""
    fields = dict(_NAMESPACE_FIELD.findall(text[text.find("Namespace("):]))
    if fields.get("enforce_eager") != "False" or fields.get("data_parallel_size", "1") not in ("1", "None"):
        return False
    compiled = fields.get("compilation_config")
    whole = text.rstrip().endswith(")")
    if compiled not in (None, "None") or (compiled is None and not whole and is_older(
            version, FIRST_RELEASE[("vllm", "compilation_config")][0]) is not True):
        return False
    cap = fields.get("max_seq_len_to_capture") or fields.get("max_context_len_to_capture") or ""
    length = fields.get("max_model_len", "")
    return not (cap.isdecimal() and length.isdecimal() and int(cap) < int(length))
# SGLang's decode log line (scheduler_metrics_mixin.py `log_decode_stats`; `Decode batch,` from v0.5.23).
_DECODE_GRAPH = re.compile(r"Decode batch[.,].*?#running-req:\s*(\d+),.*?cuda graph:\s*(True|False)")
# vLLM V1's own resolution of its graph mode (gpu_model_runner.py), e.g. "CUDAGraphMode.FULL_AND_PIECEWISE is not
# supported with TritonMLABackend backend (support: AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE
# because attention is compiled piecewise" (corpus 685): a mode other than NONE keeps graphs on, NONE turns them off.
_CUDAGRAPH_MODE_SET = re.compile(r"setting cudagraph_mode\s*=\s*([A-Z_]+)", re.I)
# vLLM V1's graph mode stated on a line of its own, as a user quotes the setting a run kept (`cudagraph_mode=
# FULL_AND_PIECEWISE`, corpus 2479) or passes it (`-O.cudagraph_mode=PIECEWISE`, `--compilation-config.cudagraph_mode
# FULL`): one of vLLM's CUDAGraphMode names (vllm/config/compilation.py). NONE runs eagerly; any other captures graphs.
STATED_GRAPH_MODE = re.compile(r"^\s*(?:-O\.|--compilation[-_]config\.)?cudagraph_mode(?:\s*[=:]\s*|\s+)[\"']?"
                               r"(NONE|PIECEWISE|FULL|FULL_DECODE_ONLY|FULL_AND_PIECEWISE)[\"']?\s*$")
# vLLM's own override, e.g. "Data Parallel: Forcing enforce eager to be True since DP is currently not
# supported with CUDA Graphs." (vllm/platforms/cuda.py).
_FORCED_EAGER = re.compile(r"Forcing enforce[ _]eager to be True", re.I)
# TGI's shard giving up its graphs: flash_causal_lm.py warmup catches the capture's out-of-memory error, logs
# "Decode cuda graph warmup failed" and serves on without graphs (corpus 2646, 1515).
_TGI_GRAPH_WARMUP_FAILED = re.compile(r"\bDecode cuda graph warmup failed", re.I)
# vLLM's engine-config line `model='org/name'`, its `non-default args: {'model': 'org/name'}`, SGLang's
# `server_args=ServerArgs(model_path='org/name'` and v0.5.23's dict form `{'model_path': 'org/name'`.
_MODEL = re.compile(r"""(?:\bmodel(?:_path)?=|['"]model(?:_path)?['"]:\s*)['"]([^'"\s]{1,300})['"]""")
# Kernel settings in the configuration dumps: vLLM's engine-config line and `non-default args: {...}`, SGLang's
# server_args (ServerArgs repr or dict). `None` values are skipped: the engine chose.
_KERNEL_SETTING = re.compile(r"""(?<![\w.])['"]?(quantization|attention_backend|decode_attention_backend|kv_cache_dtype)"""
                             r"""['"]?\s*[=:]\s*['"]?([A-Za-z][\w.-]{0,40})""")
# Words of the engine's lines about the kernels it runs (the check's table judges them).
_KERNEL_WORDS = ("marlin", "attention backend", "native support for fp", "backend is not supported")
# The rank a log line's prefix names: vLLM's worker (`(VllmWorker TP1 pid=7)`, `(Worker_TP0_EP0 pid=7)`,
# `(VllmWorker rank=1 pid=7)`), SGLang's tag (`[2025-03-10 16:21:31 TP1]`, `[2026-01-20 02:40:16 DP1 TP1]`) or
# torch.distributed's (`[rank1]:`), after any Ray prefix (`(RayWorkerProc pid=7) (Worker_DP0_TP1_EP1 pid=7)`). Each tag is
# one process, and each such process drives one GPU.
_RANK_TAG = re.compile(r"^\s*(?:(?:\([^()]*\)\s+)*?\((?:\w+?[ _])?(?P<v>(?:TP|DP|PP|EP)\d+(?:_(?:TP|DP|PP|EP)\d+)*|rank=\d+)[ )]"
                       r"|\[[\d :.,-]*\s(?P<s>(?:TP|DP|PP|EP|CP)\d+(?: (?:TP|DP|PP|EP|CP)\d+)*)\] |\[rank(?P<t>\d+)\]:)")
# Custom all-reduce's lines (vLLM and SGLang custom_all_reduce.py `Registering %d cuda graph addresses`; the CUDA
# error macro of its kernels, csrc/custom_all_reduce.cuh `Cuda error %s:%d '%s'`).
_AR_REGISTERED = re.compile(r"\bRegistering \d+ cuda graph addresses")
_AR_ERROR = re.compile(r"custom_all_reduce\.cuh?:\d+\s+'[^']+'")


def log_rank(line: str) -> str:
    """The rank a log line's prefix names (`TP1`, `DP1 TP1`, `rank=1`, `rank1`); "" where it names none."""
    m = _RANK_TAG.match(line)
    if m is None:
        return ""
    return m["v"] or m["s"] or f"rank{m['t']}"


# TensorRT-LLM's runtime on its MPI world (tensorrt_llm/runtime, its `[TensorRT-LLM][INFO]` lines): `MPI size: 4,
# rank: 0` (`MPI size: 2, MPI local size: 2, rank: 1` from 0.12: the ranks on this node), `Rank 1 is using GPU 1` (the
# CUDA device each rank takes), `Detecting local TP group for rank 6` / `TP group is intra-node for rank 1` (its custom
# all-reduce finding the TP group's ranks on this node), `Loaded engine size: 8745 MiB` (tensorrtllm_backend#396,
# #576, #149).
_TRTLLM_MPI = re.compile(r"\bMPI size: (?P<size>\d+), (?:MPI local size: (?P<local>\d+), )?rank: \d+")
_TRTLLM_RANK = re.compile(r"\bMPI size: \d+, (?:MPI local size: \d+, )?rank: (?P<rank>\d+)|\bRank (?P<r2>\d+) is using GPU"
                          r"|\b(?:Detecting local TP group|TP group is (?:intra|inter)-node) for rank (?P<r3>\d+)")
_TRTLLM_RANK_GPU = re.compile(r"\bRank (\d+) is using GPU (\d+)")
_TRTLLM_ENGINE_SIZE = re.compile(r"\bLoaded engine size: (\d+) MiB")

_CACHE_PATH = re.compile(r"(?:reading|generating) GPU P2P access cache (?:from|in) (\S+\.json)")


# NCCL's path dump, one line per GPU (older `GPU/4B000`, newer `GPU/0-4000` with the host's index), and each peer.
_PATH_DUMP = re.compile(r"NCCL INFO GPU/(?:\d+-)?([0-9A-Fa-f]+) :(GPU/.*)$")
_PATH_PEER = re.compile(r"GPU/(?:\d+-)?([0-9A-Fa-f]+) \(\d+/[\d.]+/([A-Z]+)\)")
_PATH_NET = re.compile(r"\b(NET/\d+) \(\d+/[\d.]+/([A-Z]+)\)")
# The same dump's line for a network device (`NET/3 :GPU/2000 (4/1.250000/SYS) ... CPU/1 (2/1.250000/PHB) ...`), and a
# CPU entry of either line (NCCL's CPU nodes are NUMA nodes: `CPU/0`, `CPU/0-1` with the host's index).
_PATH_NET_LINE = re.compile(r"NCCL INFO (NET/(?:\d+-)?[0-9A-Fa-f]+) :(GPU/.*)$")
_PATH_CPU = re.compile(r"\bCPU/((?:\d+-)?[0-9A-Fa-f]+) \(\d+/[\d.]+/([A-Z]+)\)")
# A GPU's path line that reaches the CPUs (listed after GPUs, PCI switches and NVSwitches, before NICs and NETs) and
# ends on a whole entry: one that lists no NET lists none because NCCL's topology holds none.
_PATH_NO_NET = re.compile(r"\bCPU/(?:\d+-)?[0-9A-Fa-f]+ \(\d+/[\d.]+/[A-Z]+\)\s*$")
# vLLM's stats line as its first releases printed it from scheduler.py (0.1.0 to 0.1.2, June-July 2023): one
# `Throughput: 181.6 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: ...`. By August
# 2023 the line had moved to llm_engine.py as `Avg prompt throughput: ..., Avg generation throughput: ...`
# (vllm-project/vllm#700, 2023-08-08), months before vLLM captured CUDA graphs (0.2.6, vllm-project/vllm#1926).
VLLM_EARLY_STATS = re.compile(r"\bscheduler\.py:\d+\] Throughput: [\d.]+ tokens/s, Running: \d+ reqs, Swapped: \d+ reqs, "
                              r"Pending: \d+ reqs")
# The same line as llm_engine.py printed it from vllm-project/vllm#700 (2023-08-08, 0.1.4) until
# vllm-project/vllm#2316 (2024-01, 0.3.0) moved it to metrics.py: `llm_engine.py:613] Avg prompt throughput: 0.0
# tokens/s, Avg generation throughput: ...`. Those releases are 0.1.4 to 0.2.7; only 0.2.6 and 0.2.7 capture graphs.
VLLM_2023_STATS = re.compile(r"\bllm_engine\.py:\d+\] Avg prompt throughput: [\d.]+ tokens/s, Avg generation throughput")
# vLLM's start-up lines that name its release: the v0 engine's config line and the API server's banner.
_VLLM_VERSION = re.compile(r"Initializing an LLM engine \(v(\d+\.\d+[^)\s]*)\)|vLLM API server version (\d+\.\d+\S*)")


# NCCL's topology tree (graph/topo.cc ncclTopoPrint, NCCL_DEBUG=INFO with the GRAPH subsystem): `=== System : maxBw
# 48.0 totalBw 370.8 ===`, then per CPU a root line `CPU/0-0 (1/2/-1)` and one line per link, indented under its
# node: `+ PCI[48.0] - GPU/0-68000 (8)`, `+ NVL[370.8] - NVS/0-0`, `+ NET[50.0] - NET/0-c (...)`; closed by
# `=====` (corpus 627, 1269). Older NCCL writes ids without the host's index (`GPU/7000`, `NVS/0`).
# An excerpt cut below the header starts at a CPU's root line, which gives the CPU's arch/vendor/model
# (`CPU/0 (1/2/-1)`, corpus 1394). A link line a reader marked bold in Markdown (`**+ NET[25.0] - NET/0 (...)**`) is
# read as the line it marks.
_TREE_START = re.compile(r"NCCL INFO === System : max(?:Bw|Width) [\d.]+(?: total(?:Bw|Width) ([\d.]+))?")
_TREE_ROOT = re.compile(r"NCCL INFO (CPU/[0-9A-Fa-f-]+)\b")
_TREE_CPU_ROOT = re.compile(r"NCCL INFO CPU/[0-9A-Fa-f-]+ \(\d+/\d+/-?\d+\)")
_TREE_LINK = re.compile(r"NCCL INFO( *)(?:\*\*)?\+ ([A-Z]+)\[([\d.]+)\] - ([A-Z]+)/([0-9A-Fa-f-]+)(?: \(([0-9A-Fa-f]+)\))?")
_TREE_END = re.compile(r"NCCL INFO =====+\s*$")
# The PCI ids NCCL prints for a PCI switch (`PCI/0-65000 (104c823200000000)`: vendor, device, subsystem vendor,
# subsystem device) that only a hypervisor presents: QEMU's emulated Texas Instruments XIO3130 switch ports
# (`x3130-upstream` 104c:8232, `xio3130-downstream` 104c:8233, hw/pci-bridge/xio3130_*.c) and Red Hat's
# generic PCIe root port (1b36:000c, hw/pci-bridge/gen_pcie_root_port.c).
EMULATED_SWITCHES = {"104c8232": "QEMU's emulated TI XIO3130 switch port (104c:8232)",
                     "104c8233": "QEMU's emulated TI XIO3130 switch port (104c:8233)",
                     "1b36000c": "QEMU's generic PCIe root port (1b36:000c)"}
# NCCL's per-link NVLink bandwidth (graph/topo.h SMxx_NVLINK_BW) and the most NVLinks a GPU of that architecture
# has: an NVL figure that is that product shows every link of the GPU up (NCCL adds one link's bandwidth per active
# link, graph/topo.cc ncclTopoConnectNodes over nvmlDeviceGetNvLinkState). Hopper 20.6 x 18 (H100/H200 SXM),
# Blackwell 40.1 x 18, Ampere 20.0 x 12 (A100 SXM); a product no other architecture's per-link figure divides.
# Ampere's 12 x 21.0 of NCCL 2.7-2.8 (which gave Ampere Volta's figure, VOLTA_NVLINK_WIDTH 21.0) and 12 x 22.0 of the
# releases with SM80_NVLINK_BW 22.0: no other architecture's links multiply to those (Volta has 6, Hopper's figure is
# 20.0 or 20.6); 12 x 20.0 is left out, as 12 of a Hopper GPU's 18 links at its 20.0 give it too.
FULL_NVL_BW = {370.8: "18 NVLink 4 links of a Hopper GPU (NCCL's 20.6 GB/s each)",
               721.8: "18 NVLink 5 links of a Blackwell GPU (NCCL's 40.1 GB/s each)",
               252.0: "12 NVLink 3 links of an Ampere GPU (NCCL 2.7-2.8's 21.0 GB/s each)",
               264.0: "12 NVLink 3 links of an Ampere GPU (NCCL's 22.0 GB/s each)"}

# The boards whose GPUs NVLink joins directly, without NVSwitch, by each GPU's bond to its peers: the sorted link
# counts (NCCL's NVL figure to a peer over its per-link figure: graph/topo.cc ncclTopoAddNvLinks connects the pair at
# the link count times ncclTopoNVLinkBw), the per-link figures NCCL gives that architecture over its releases
# (graph/topo.h: Pascal 18.0; Volta and Ampere 21.0 to 2.9, 22.0 from 2.10, 20.0 from 2.18; Hopper 20.0 in 2.18-2.19,
# 20.6 from 2.20), the GPUs of the board, and what it is. Each is every NVLink of its GPU: a P100 SXM2 has 4, a V100
# SXM2 6 (the eight GPUs of a DGX-1's hybrid cube mesh, NVIDIA WP-08437-002), an A100 SXM4 12 and an H100/H200 SXM 18
# (the four-GPU HGX boards: four or six to each peer). A link down lowers one pair's count below the board's, so a
# GPU that lost one matches no row.
DIRECT_NVL_BOARDS: dict[tuple[int, ...], tuple[tuple[float, ...], int, str]] = {
    (1, 1, 1, 1): ((18.0,), 8, "the 4 NVLinks of a P100 SXM2, one to each of four peers (a DGX-1's hybrid cube mesh "
                               "of eight)"),
    (1, 1, 2, 2): ((20.0, 21.0, 22.0), 8, "the 6 NVLinks of a V100 SXM2, two to each of two peers and one to each of "
                                          "two others (a DGX-1's hybrid cube mesh of eight)"),
    (4, 4, 4): ((20.0, 21.0, 22.0), 4, "the 12 NVLinks of an A100 SXM4, four to each of three peers (a four-GPU HGX "
                                       "board)"),
    (6, 6, 6): ((20.0, 20.6), 4, "the 18 NVLinks of an H100/H200 SXM, six to each of three peers (a four-GPU HGX "
                                 "board)"),
}


@dataclass(frozen=True)
class NcclTopoTree:
    """NCCL's topology tree as a log shows it (_TREE_*): its GPUs, their NVLinks and their NICs."""

    gpus: tuple[str, ...] = ()  # the GPUs' bus ids (`68000`), in order
    closed: tuple[str, ...] = ()  # the GPUs whose block the log shows whole (a later line at or above their depth)
    # (GPU, peer such as `NVS/0-0` or `GPU/6b000`, NCCL's NVLink bandwidth, the line)
    nvlinks: tuple[tuple[str, str, float, str], ...] = ()
    # (GPU, NET, NCCL path type) for each NET the tree reaches from the GPU: PIX under the same PCI switch, PXB under
    # a common switch further up, PHB through the CPU, SYS through another CPU.
    nets: tuple[tuple[str, str, str], ...] = ()
    # Each PCI switch whose PCI ids a hypervisor presents (EMULATED_SWITCHES): (what, the line)
    emulated: tuple[tuple[str, str], ...] = ()
    lines: tuple[str, ...] = ()  # the GPU lines, verbatim
    whole: bool = False  # the log shows the tree's closing `=====` line: every node NCCL holds is listed
    end_line: str = ""  # that line, verbatim
    # The header's `totalBw` (older `totalWidth`): the most NVLink bandwidth any GPU of the tree has in all
    # (graph/search.cc getTotalBw, the larger of its NVL links' sum and its PCI link); None where not shown.
    total_bw: float | None = None
    # (GPU, the CPU root it hangs under, `CPU/1` or `CPU/0-1`): NCCL's CPU nodes are the NUMA nodes sysfs gives
    # each device (graph/xml.cc reads the device's `numa_node`), one root per node.
    gpu_cpus: tuple[tuple[str, str], ...] = ()
    # The NIC lines whose block the log shows whole with no NET under it: NCCL drops every NET of a communicator
    # whose ranks are all on this node (paths.cc ncclTopoTrimSystem) and prints the tree after, keeping the NIC.
    bare_nics: tuple[str, ...] = ()

    def mesh_board(self) -> tuple[str, float, dict[str, tuple[float, ...]], int] | None:
        """The direct NVLink board (DIRECT_NVL_BOARDS) every GPU shown whole is bonded as, with NCCL's per-link figure,
        each GPU's NVL figures to its peers and the board's GPUs; None where the tree shows none, an NVSwitch, a GPU
        whole without NVLink, GPUs of two rows or figures, or a GPU whose NVL sum is not the header's totalBw (the
        most any GPU of the tree has, graph/search.cc getTotalBw: below it, another GPU has more)."""
        bonds: dict[str, list[float]] = {g: [] for g in self.closed}
        for gpu, peer, bw, _ in self.nvlinks:
            if gpu not in bonds:
                continue
            if not peer.startswith("GPU/"):
                return None
            bonds[gpu].append(bw)
        if not bonds or any(not b for b in bonds.values()):
            return None
        if self.total_bw is not None and any(abs(sum(b) - self.total_bw) > 0.05 for b in bonds.values()):
            return None
        found = set()
        for bws in bonds.values():
            rows = set()
            for counts, (figures, board, what) in DIRECT_NVL_BOARDS.items():
                for figure in figures:
                    links = [bw / figure for bw in bws]
                    if all(abs(n - round(n)) < 0.01 for n in links) and tuple(sorted(round(n) for n in links)) == counts:
                        rows.add((what, figure, board))
            if len(rows) != 1:
                return None
            found |= rows
        if len(found) != 1:
            return None
        what, figure, board = found.pop()
        return what, figure, {g: tuple(b) for g, b in bonds.items()}, board

    def named_gpus(self) -> tuple[str, ...]:
        """Every GPU the tree names: those whose block it lists and the NVLink peers they link to, in order. NCCL's
        tree holds only the GPUs of the communicator's ranks on this node (graph/topo.cc ncclTopoGetSystem)."""
        peers = [p.split("/")[-1].split("-")[-1] for _, p, _, _ in self.nvlinks if p.startswith("GPU/")]
        return tuple(dict.fromkeys([*self.gpus, *peers]))


def cpu_homes(line: str) -> list[tuple[str, str]]:
    """The CPU node each GPU of one line of NCCL's path dump sits under (graph/paths.cc printNodePaths), as
    (GPU bus id, `CPU/1`); [] where the line does not settle one.

    The line's own device (a GPU, or a NET: `NET/3 :GPU/2000 (4/1.25/SYS) ...`) sits under the one CPU it reaches
    over PHB (through that CPU's host bridge). A GPU it reaches over PCIe alone (PIX, PXB, PHB) shares that CPU; one
    at SYS crosses to another, named only where the line lists two CPUs. NVLink says nothing of the CPU. A line whose
    CPUs are not all NUMA ids (NCCL's id for a device that reports none, `CPU/FFFFFFFFFFFFFFFF`) settles none."""
    cpus = _PATH_CPU.findall(line)
    if not cpus or any(len(c.split("-")[-1]) > 4 for c, _ in cpus):
        return []
    own = [c.lower() for c, kind in cpus if kind == "PHB"]
    if len(own) != 1:
        return []
    head = _PATH_DUMP.search(line) or _PATH_NET_LINE.search(line)
    if head is None:
        return []
    other = [c.lower() for c, _ in cpus if c.lower() != own[0]]
    homes = [(head.group(1).lower(), f"CPU/{own[0]}")] if head.re is _PATH_DUMP else []
    for gpu, kind in _PATH_PEER.findall(head.group(2)):
        if kind in ("PIX", "PXB", "PHB"):
            homes.append((gpu.lower(), f"CPU/{own[0]}"))
        elif kind == "SYS" and len(other) == 1:
            homes.append((gpu.lower(), f"CPU/{other[0]}"))
    return homes


def parse_nccl_topo_tree(lines: list[str]) -> NcclTopoTree | None:
    """The first topology tree of an NCCL log (_TREE_*), or None where the log shows none."""
    start = next((i for i, ln in enumerate(lines) if _TREE_START.search(ln)), None)
    if start is None:
        # Cut above its header: the tree starts at its first CPU's root line (read as the first line of the tree).
        start = next((i - 1 for i, ln in enumerate(lines) if _TREE_CPU_ROOT.search(ln)), None)
    if start is None:
        return None
    # Each node: (id, parent index or -1, depth column, type); roots are CPUs.
    nodes: list[tuple[str, int, int, str]] = []
    stack: list[int] = []
    gpu_lines: dict[str, str] = {}
    gpu_at: dict[str, int] = {}
    closed: set[str] = set()
    nvlinks: list[tuple[str, str, float, str]] = []
    emulated: list[tuple[str, str]] = []
    # Each NIC node's index: [its line, whether a NET hangs under it, whether a later line closes its block].
    nics: dict[int, list[object]] = {}
    total = _TREE_START.search(lines[start]) if start >= 0 else None
    end = ""
    for line in lines[start + 1:]:
        if _TREE_END.search(line):
            closed.update(gpu_at)
            for nic in nics.values():
                nic[2] = True
            end = line.strip()[:400]
            break
        if (m := _TREE_LINK.search(line)) is not None:
            col = len(m.group(1))
            while stack and nodes[stack[-1]][2] >= col:
                stack.pop()
            if not stack:
                continue
            parent = stack[-1]
            link, bw, kind, ident, pci_id = m.group(2), float(m.group(3)), m.group(4), m.group(5).lower(), m.group(6)
            bus = ident.split("-")[-1]
            for g, at in gpu_at.items():
                if at >= 0 and nodes[at][2] >= col:
                    closed.add(g)
            for at, nic in nics.items():
                if nodes[at][2] >= col:
                    nic[2] = True
            if link == "NVL" and nodes[parent][3] == "GPU":
                nvlinks.append((nodes[parent][0], f"{kind}/{ident}", bw, line.strip()[:400]))
            if kind == "NET" and parent in nics:
                nics[parent][1] = True
            if kind == "CPU":
                continue  # a link to another CPU: printed again as that CPU's own root
            name = bus if kind == "GPU" else f"{kind}/{ident}"
            nodes.append((name, parent, col, kind))
            stack.append(len(nodes) - 1)
            if kind == "GPU" and link == "PCI":
                gpu_lines.setdefault(bus, line.strip()[:400])
                gpu_at.setdefault(bus, len(nodes) - 1)
            if kind == "NIC":
                nics[len(nodes) - 1] = [line.strip()[:400], False, False]
            if kind == "PCI" and pci_id and (what := EMULATED_SWITCHES.get(pci_id[:8].lower())):
                emulated.append((what, line.strip()[:400]))
        elif (m := _TREE_ROOT.search(line)) is not None:
            closed.update(g for g in gpu_at)
            for nic in nics.values():
                nic[2] = True
            nodes.append((f"CPU/{m.group(1)[4:].lower()}", -1, -1, "CPU"))
            stack = [len(nodes) - 1]
        elif "NCCL INFO" in line:
            break
    def chain(i: int) -> list[int]:
        out = []
        while i >= 0:
            out.append(i)
            i = nodes[i][1]
        return out
    nets: list[tuple[str, str, str]] = []
    for gpu, at in gpu_at.items():
        up = chain(nodes[at][1])
        for node in nodes:
            if node[3] != "NET" or node[1] < 0:
                continue
            nic_up = chain(nodes[node[1]][1])  # the NIC's ancestors
            common = next((a for a in up if a in nic_up), None)
            if common is None:
                kind = "SYS"
            elif nodes[common][3] == "CPU":
                kind = "PHB"
            elif common == up[0] and common == nic_up[0]:
                kind = "PIX"
            else:
                kind = "PXB"
            nets.append((gpu, node[0], kind))
    return NcclTopoTree(gpus=tuple(gpu_at), closed=tuple(g for g in gpu_at if g in closed),
                        nvlinks=tuple(nvlinks), nets=tuple(nets), emulated=tuple(emulated),
                        lines=tuple(gpu_lines.values()), whole=bool(end), end_line=end,
                        total_bw=float(total.group(1)) if total is not None and total.group(1) else None,
                        gpu_cpus=tuple((gpu, nodes[chain(at)[-1]][0]) for gpu, at in gpu_at.items()),
                        bare_nics=tuple(str(nic[0]) for nic in nics.values() if nic[2] and not nic[1]))


def ggml_release(lines: list[str]) -> tuple[str, str]:
    """llama.cpp's release and its line, from the first build banner of the lines (GGML_BUILD_INFO: `build: 7018
    (ece0f5c17) with ...`, `main: build = 992 (0919a0f)`; GGML_VERSION only directly above a `built with` line);
    ("", "") where none shows one."""
    for i, line in enumerate(lines):
        m = _GGML_RELEASE.match(line) if "build" in line else None
        if m is not None and GGML_LOG_LINE.match(line):
            return m.group(1) or m.group(2), line.strip()
        m = GGML_VERSION.match(line) if "version: " in line else None
        if m is not None and i + 1 < len(lines) and GGML_BUILT_WITH.match(lines[i + 1]):
            return m.group(1), line.strip()
    return "", ""


# Dynamo's resolved service config (ENGINE_CONSOLES): each service a dict of its settings; a vLLM worker's
# (`VllmWorker`, `PrefillWorker` of its vLLM graphs) are vLLM's own flags without their dashes, `ServiceArgs` Dynamo's.
DYNAMO_CONFIG = "Running dynamo serve with"
_DYNAMO_WORKER = re.compile(r"'(?P<name>\w*Worker)': (?=\{)")


def _dict_end(text: str, start: int) -> int | None:
    """The index after the `}` that closes the dict literal opening at `start`, braces in quoted strings aside; None
    where the text ends first (a line the paste cuts)."""
    depth, quote = 0, ""
    for k in range(start, len(text)):
        c = text[k]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
    return None


def dynamo_workers(line: str) -> tuple[tuple[str, int, bool], ...]:
    """The vLLM worker services a `dynamo serve` config line shows whole (a section the paste cuts is left out): each
    one's name, its TP (`'tensor-parallel-size'`, vLLM's default 1) and whether it runs its ranks on Ray
    (`'distributed-executor-backend': 'ray'`)."""
    import ast

    workers: list[tuple[str, int, bool]] = []
    for m in _DYNAMO_WORKER.finditer(line):
        end = _dict_end(line, m.end())
        try:
            section = ast.literal_eval(line[m.end():end]) if end is not None else None
        except (ValueError, SyntaxError):
            section = None
        if not isinstance(section, dict):
            continue
        tp = next((section[k] for k in ("tensor-parallel-size", "tensor_parallel_size") if k in section), 1)
        ray = any(section.get(k) == "ray" for k in ("distributed-executor-backend", "distributed_executor_backend"))
        if isinstance(tp, int) or (isinstance(tp, str) and tp.isdecimal()):
            workers.append((m.group("name"), int(tp), ray))
    return tuple(workers)


def parse_serving_log(text: str) -> ServingLog:
    """Parse vLLM / SGLang / llama.cpp / ollama / Triton server log lines, TensorRT-LLM's runtime lines and NCCL INFO
    lines (everything else is ignored)."""
    lines = [ln.rstrip("\r") for ln in text.splitlines() if ln.strip()]
    lines = fold_args_block(lines)
    relevant = [ln for ln in lines if is_log_line(ln)]
    if not relevant:
        raise ParseError("no vLLM, SGLang or NCCL log lines")
    release, release_line = ggml_release(lines)
    engine = ""
    ar: list[tuple[str, str]] = []
    skipped = ""
    cache_paths: list[str] = []
    generated = False
    p2p_fail: list[str] = []
    version = ""
    nccl_cuda = driver_cuda = ""
    cuda_lines: list[str] = []
    channels: list[NcclChannel] = []
    hosts: list[str] = []
    host_pids: dict[str, set[int]] = {}  # each host name's processes (`host:pid:tid`)
    devices: set[int] = set()
    rings_line = ""
    pids: list[int] = []
    addresses: list[tuple[str, str, str]] = []
    nccl_env: dict[str, str] = {}
    net: list[str] = []
    gdr: list[GdrDecision] = []
    affinity: dict[tuple[str, int], tuple[str, int, str, str]] = {}
    graphs = ""
    graph_lines: list[str] = []
    warm_sizes: set[str] = set()  # the batch sizes TensorRT-LLM's CUDA graph warmup lines name (_TRTLLM_GRAPH_WARMUP)
    namespace_line = ""  # vLLM's `args: Namespace(` line with enforce_eager=False
    v0_sizes_line = ""  # vLLM V0's engine-config line with capture sizes filled (_V0_CAPTURE_SIZES)
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    disable_ar: bool | None = None
    cumem: list[str] = []
    warns: list[str] = []
    local_ranks = comm_ranks = world_size = 0
    members: list[tuple[str, int, int, int, str, str]] = []
    nvls: list[str] = []
    kv_transfer = False
    beyond_node: list[tuple[int, int, str]] = []
    node_counts: list[tuple[int, int, str]] = []
    branches: list[str] = []
    mq_shared: list[tuple[int, str]] = []
    bus_ids: list[str] = []
    model = ""
    decode_batches: list[tuple[int, bool]] = []
    decode_eager: list[str] = []
    launcher_omp: tuple[str, str] | None = None
    paths: dict[tuple[str, str], str] = {}
    homes: list[tuple[str, str, str]] = []
    homes_seen: set[tuple[tuple[str, str], str]] = set()
    nets: dict[tuple[str, str], str] = {}
    path_lines: list[str] = []
    netless_lines: list[str] = []
    net_listed = False  # some GPU line of the path dump lists a NET: no line shows them dropped
    kernel_settings: dict[str, str] = {}
    kernel_lines: list[str] = []
    vllm_version = ""
    sglang_dated = ""
    vllm_early_stats = ""
    vllm_2023_stats = ""
    ar_registered: list[str] = []
    ar_ranks: list[str] = []
    ar_errors: list[str] = []
    graph_ranks: list[str] = []
    ranks: list[str] = []
    gpu_layers: tuple[int, int, str] | None = None
    no_vram_line = ""
    model_fit: tuple[float, float, str] | None = None
    windows_line = ""
    ollama_gpus: tuple[int, str, str] | None = None
    ggml_devices: list[str] = []
    other_devices: list[str] = []
    ggml_line = ""
    ggml_archs: dict[tuple[int, ...], str] = {}
    ggml_graphs: dict[str, bool] = {}
    ggml_graphs_line = ""
    ggml_threads: tuple[int, int, int, bool, str] | None = None
    ggml_no_backend = ""
    rccl: list[str] = []
    triton_line = ""
    rank_gpus: list[tuple[int, int]] = []
    engine_size: tuple[int, str] | None = None
    mlock_failed: tuple[int, str] | None = None
    # Each pattern runs only on lines holding its key words (cheap substring tests first: a long log).
    for line in relevant:
        text_l = line.strip()
        low = text_l.lower()
        if not engine:
            # An engine's name decides before a line's format: a platform's `[2023-10-30 14:14:08] ` prefix is
            # SGLang's format too (corpus 903: a vLLM start under a container launcher).
            if "sglang" in low:
                engine = "sglang"
            elif "vllm" in low or "engine_args." in low:
                engine = "vllm"
            elif console := console_engine(line):
                engine = console
            elif MLC_LINE.search(line):
                engine = "mlc"
            elif SGLANG_LINE.search(line):
                engine = "sglang"
            elif VLLM_LINE.search(line):
                engine = "vllm"
            elif GGML_LOG_LINE.match(line) and not ("buil" in line and GGML_BANNER.match(line)):
                engine = "llamacpp"
            elif (" level=" in line and OLLAMA_LINE.search(line)) or is_ollama_cut_line(line) \
                    or (".go:" in line and OLLAMA_GO_LINE.search(line)):
                engine = "ollama"
            elif TRITON_LINE.match(line):
                engine = "triton"
            elif "torchrun" in low and _TORCHRUN.search(text_l):
                # The torch.distributed launcher starting a script (`torchrun --nproc_per_node 8 test.py`, corpus
                # 2870): a PyTorch program, whichever engine the script builds on torch.
                engine = "torch"
        # Triton serves a model through a backend: TensorRT-LLM's lines (or its backend's libtensorrtllm.cc) name the
        # engine that runs it.
        triton = TRITON_LINE.match(line) if ".cc:" in line else None
        if engine in ("", "triton") and ((triton is not None and triton["file"] == "libtensorrtllm")
                                         or ("[TensorRT-LLM][" in line and TRTLLM_LINE.match(line))):
            engine = "trtllm"
        if engine == "localai" and ("GRPC(" in line or "backend" in line) and LOCALAI_LLAMACPP.search(line):
            engine = "llamacpp"
        if not triton_line and triton is not None:
            triton_line = text_l
        m = GGML_OFFLOADED.search(text_l) if "offloaded" in low else None
        if m:
            gpu_layers = (int(m.group(1)), int(m.group(2)), text_l)
        if not no_vram_line and "vram used" in low and GGML_NO_VRAM.search(text_l):
            no_vram_line = text_l
        m = OLLAMA_OFFLOAD.search(text_l) if "layers.offload=" in low else None
        if m:
            gpu_layers = (int(m.group(2)), int(m.group(1)), text_l)
        if not windows_line and ("_windows.go:" in text_l or "MSVC" in text_l or "windows-msvc" in text_l
                                 or "OS VRAM overhead" in text_l) and OLLAMA_WINDOWS.search(text_l):
            windows_line = text_l
        m = OLLAMA_PLACED.search(text_l) if "memory.available=" in low and "offload" in low else None
        if m and (m["to"] or m["lib"] or "").lower() != "cpu":
            placed = max(len(_OLLAMA_FREE.findall(m["avail"])), len([s for s in (m["split"] or m["bare"] or "").split(",") if s.strip()]))
            if ollama_gpus is None or placed > ollama_gpus[0]:
                ollama_gpus = (placed, f'memory.available="[{m["avail"]}]"', text_l)
        m = OLLAMA_FIT.search(text_l) if "available=" in low and "required" in low else None
        if m:
            gib = {"MiB": 1 / 1024, "GiB": 1.0}
            free = int(m["bytes"]) / 2**30 if m["bytes"] else float(m["free"]) * gib[m["fu"]]
            need = float(m["req"]) * gib[m["ru"]] if m["req"] else float(m["full"]) * gib[m["su"]]
            model_fit = (round(free, 1), round(need, 1), text_l)
        m = (GGML_CUDA_BUFFER.search(text_l) if "buffer size" in low else GGML_USING_DEVICE.search(text_l)
             if "using device" in low else GGML_DEVICE_INFO.match(text_l) if "MiB free)" in text_l
             else GGML_BREAKDOWN_DEVICE.search(text_l) if "memory_breakdown" in low else None) \
            if engine in ("llamacpp", "ollama") else None
        if m:
            ggml_line = ggml_line or text_l
            if m.group(1) not in ggml_devices:
                ggml_devices.append(m.group(1))
        m = GGML_OTHER_DEVICE_INFO.match(text_l) if "MiB free)" in text_l and engine in ("llamacpp", "ollama") else None
        if m and m.group(1) not in other_devices:
            other_devices.append(m.group(1))
        m = GGML_CUDA_ARCHS.search(text_l) if "ARCHS" in text_l else None
        if m:
            ggml_archs.setdefault(tuple(int(a) for a in m.group(1).split(",")), text_l)
        for m in GGML_USE_GRAPHS.finditer(text_l) if "USE_GRAPHS" in text_l else ():
            ggml_graphs.setdefault(m.group(1) or "", m.group(2) == "1")
            ggml_graphs_line = ggml_graphs_line or text_l
        if not ggml_no_backend and "BLAS = 0" in text_l and GGML_NO_GPU_BACKEND.search(text_l) \
                and not _GGML_GPU_KEY.search(text_l):
            ggml_no_backend = text_l
        m = GGML_THREADS.search(text_l) if ggml_threads is None and "n_threads =" in text_l else None
        if m:
            ggml_threads = (int(m.group(1)), int(m.group(2)), int(m.group(3)),
                            (o := GGML_OPENMP.search(text_l)) is not None and o.group(1) == "1", text_l)
        m = _VLLM_VERSION.search(text_l) if not vllm_version and ("llm engine (v" in low or "server version" in low) \
            else None
        if m:
            vllm_version = m.group(1) or m.group(2)
        if not sglang_dated and text_l.startswith("[") and SGLANG_DATED_LINE.match(text_l):
            sglang_dated = text_l
        if not vllm_early_stats and "] Throughput: " in text_l and VLLM_EARLY_STATS.search(text_l):
            vllm_early_stats = text_l
        if not vllm_2023_stats and "llm_engine.py:" in text_l and VLLM_2023_STATS.search(text_l):
            vllm_2023_stats = text_l
        if "skipping p2p check" in low and "trusting the driver" in low and not skipped:
            skipped = text_l
        if "is disabled" in low and CUSTOM_AR_DISABLED.search(text_l):
            reason = next((code for rx, code in _AR_REASONS if rx.search(text_l)), AR_OTHER)
            ar.append((reason, text_l))
        elif "custom all-reduce kernels are temporarily disabled" in low:
            ar.append((AR_RELEASE, text_l))
        if text_l[:1] in "([" and len(ranks) < 64 and (rank := log_rank(line)) and rank not in ranks:
            ranks.append(rank)
        if "cuda graph addresses" in low and _AR_REGISTERED.search(text_l):
            if len(ar_registered) < 16:
                ar_registered.append(text_l)
            if (rank := log_rank(line)) and rank not in ar_ranks:
                ar_ranks.append(rank)
        if "custom_all_reduce." in low and len(ar_errors) < 8 and (_AR_ERROR.search(text_l) or _AR_FRAME.search(text_l)):
            ar_errors.append(text_l)
        m = _CACHE_PATH.search(text_l) if "p2p access cache" in low else None
        if m:
            cache_paths.append(m.group(1))
            generated = generated or "generating" in low
        # NCCL src/transport/p2p.cc: INFO "Could not enable P2P between dev %d(=%lx) and dev %d(=%lx)"
        # when cudaDeviceCanAccessPeer says no: NCCL then routes that pair through SHM or the network.
        if ("p2p is not supported" in low or "peer access is not supported" in low
                or "p2p is disabled between nvlink" in low or "could not enable p2p between dev" in low):
            p2p_fail.append(text_l)
        m = _NCCL_VERSION.search(text_l) if not version and "nccl" in low else None
        if m:
            version = m.group(1) or m.group(2)
        if len(rccl) < 4 and ("RCCL" in text_l or "ROCr" in text_l or "/rccl/" in text_l) and _RCCL.search(text_l):
            rccl.append(text_l[:400])
        m = _NCCL_CUDA.search(text_l) if not nccl_cuda and "+cuda" in low else None
        if m:
            nccl_cuda = m.group(1)
            cuda_lines.append(text_l)
        m = _DRIVER_CUDA.search(text_l) if not driver_cuda and "cudadriverversion" in low else None
        if m:
            number = int(m.group(1))
            driver_cuda = f"{number // 1000}.{number % 1000 // 10}"
            cuda_lines.append(text_l)
        host = _NCCL_HOST.match(line)
        nccl_line = bool(host) and is_nccl_line(line)
        if nccl_line and host and host.group(1) not in hosts:
            hosts.append(host.group(1))
        if not rings_line and ((nccl_line and host and NCCL_RINGS.search(line))
                               or ("real path" in line and NCCL_GPU_PATH_WARN.search(line))):
            rings_line = line.strip()[:400]
        if nccl_line and host:
            host_pids.setdefault(host.group(1), set()).add(int(host.group(2)))
            devices.add(int(host.group(3)))
            if int(host.group(2)) not in pids and len(pids) < 4096:
                pids.append(int(host.group(2)))
        ch = _CHANNEL.search(text_l) if ("channel" in low or "ring" in low) and "via" in low else None
        if ch:
            transport = "SHM" if "via direct shared memory" in text_l else ch.group(7).upper()
            channels.append(NcclChannel(ch.group(1), int(ch.group(2)), int(ch.group(4)), transport,
                                        (ch.group(8) or "").strip(), host.group(1) if host else "", text_l,
                                        ch.group(6) or "", ch.group(3).lower(), ch.group(5).lower()))
        elif "collnet" in low and (cn := _COLLNET_CHANNEL.search(text_l)):
            channels.append(NcclChannel(cn.group(1), int(cn.group(2)), int(cn.group(2)), "COLLNET", cn.group(4),
                                        host.group(1) if host else "", text_l, cn.group(3)))
        if "using" in low and "<" in text_l and len(addresses) < 256 and NCCL_LINE.search(text_l):
            addresses += [(i, a, text_l[:300]) for i, a in _NCCL_ADDRESS.findall(text_l)]
        for found in (_NCCL_ENV.finditer(text_l) if " set " in low or "nccl_cuda_path=" in low else ()):
            if found.group(1):
                nccl_env[found.group(1)] = found.group(2).rstrip(".")
            else:
                name, value = (found.group(3), found.group(4)) if found.group(3) else (found.group(5), found.group(6))
                nccl_env.setdefault(name, value.rstrip("."))
        # NCCL's own word on its network: NET/IB, NET/Socket, NET/Plugin lines, its plugins' (NET/OFI, NET/FastSocket)
        # and libfabric's EFA lines, and the verbs library it could not load (`misc/ibvwrap.cc:63 NCCL WARN Failed to
        # open libibverbs.so[.1]`, INFO in later releases).
        if (("net/" in low and re.search(r"NET/(IB|Socket|Plugin|OFI|FastSocket)", text_l))
                or "failed to open libibverbs" in low or ("libfabric:" in low and EFA_SIGHTED.search(text_l))
                or ("plugin path" in low and nccl_line and _PLUGIN_PATH.search(text_l))) \
                and not ch:
            net.append(text_l)
        if "efa device" in low and _EFA_NO_GPU_MEMORY.search(text_l) and len(gdr) < 256:
            gdr.append(GdrDecision("", "EFA", False, "OFI", text_l))
        m = _GPU_AFFINITY.search(text_l) if "setting affinity" in low and len(affinity) < 256 else None
        if m:
            at = host.group(1) if host else ""
            affinity.setdefault((at, int(m.group(1))), (at, int(m.group(1)), m.group(2), text_l))
        if "gpu direct rdma" in low and len(gdr) < 256:
            if m := _GDR_GPU.search(text_l):
                gdr.append(GdrDecision(m.group(2), m.group(3), m.group(1).lower() == "enabled", "", text_l))
            elif m := _GDR_HCA.search(text_l):
                gdr.append(GdrDecision("", m.group(3), m.group(2).lower() == "enabled", m.group(1), text_l))
        if ("graph" in low or "capturing batches" in low) and _GRAPH_CAPTURED.search(text_l):
            warmed = _TRTLLM_GRAPH_WARMUP.search(text_l)
            warm_sizes |= {warmed.group(1)} if warmed is not None else set()
            done = _GRAPH_FINISHED.search(text_l) is not None or (warmed is not None and len(warm_sizes) > 1)
            graphs = ("captured" if done else "capturing") if graphs in ("", "configured", "defaults", "mode set",
                                                                         "capturing") \
                else graphs
            graph_lines.append(text_l)
            if done and (rank := log_rank(line)) and rank not in graph_ranks:
                graph_ranks.append(rank)
        elif graphs == "capturing" and _SERVER_READY.search(text_l):
            graphs = "captured"
            graph_lines.append(text_l)
        # vLLM's capture line advises "To run the model in eager mode, set 'enforce_eager=True'": advice, not the value.
        m = _EAGER.search(text_l) if ("eager" in low or "cuda_graph" in low) and "run the model in eager mode" not in low \
            else None
        mode = _CUDAGRAPH_MODE_SET.search(text_l) if "cudagraph_mode" in low else None
        if mode is not None and mode.group(1).upper() == "NONE":
            graphs = "eager"
            graph_lines.insert(0, text_l)
        elif mode is not None:
            graphs = "mode set" if graphs in ("", "defaults") else graphs  # on, in the mode vLLM fell back to
            graph_lines.append(text_l)
        if m is None and (("forcing enforce" in low and _FORCED_EAGER.search(text_l))
                          or ("warmup failed" in low and _TGI_GRAPH_WARMUP_FAILED.search(text_l))):
            graphs = "eager"  # the engine turned graphs off itself (vLLM: DP, a platform or model; TGI: a failed capture)
            graph_lines.insert(0, text_l)
        if m:
            value = next(g for g in m.groups() if g)
            if value == "True":
                graphs = "eager"
                graph_lines.insert(0, text_l)
            elif _RESOLVED_CONFIG.search(text_l):
                graphs = graphs or "configured"  # the resolved configuration keeps graphs on
                graph_lines.append(text_l)
            elif (v1 := _v1_config_graphs(text_l)) == "eager":
                graphs = "eager"  # vLLM V1's resolved configuration prints use_cudagraph false
                graph_lines.insert(0, text_l)
            elif v1:
                graphs = graphs or v1  # vLLM V1's resolved configuration keeps graphs on
                graph_lines.append(text_l)
            elif not namespace_line and _NAMESPACE_ARGS.search(text_l):
                namespace_line = text_l  # judged after the loop, with the release the log states
        elif "cudagraph_capture_sizes" in low and _V0_CAPTURE_SIZES.search(text_l):
            v0_sizes_line = v0_sizes_line or text_l  # judged after the loop, against the lines that leave it open
        if not graphs and "non-default args" in low and _args_keep_graph_default(text_l):
            graphs = "defaults"  # the flags the user set leave vLLM's default, graphs on
            graph_lines.append(text_l)
        m = _TP.search(text_l) if tp is None and ("tensor_para" in low or "tensor-para" in low or "tp_size" in low
                                                  or "engineconfig(" in low) else None
        if m and int(size := next(g for g in m.groups() if g)) > 0:
            tp = int(size)
        m = _TGI_SHARDS.search(text_l) if tp is None and "num_shard: Some(" in text_l else None
        if m:
            tp = int(m.group(1))
        m = (XINFERENCE_GPU_INDEX.search(text_l) or _GPU_IDX_ARG.search(text_l)) \
            if tp is None and "gpu" in low and "[" in text_l else None
        if m and len(listed_indices(m["idx"])) == 1:
            tp = 1  # a launcher gives the model one GPU: no tensor-parallel group
        m = _PP.search(text_l) if pp is None and ("pipeline_parallel_size" in low or "pp_size" in low) else None
        if m:
            pp = int(m.group(1) or m.group(2))
        m = _DP.search(text_l) if dp is None and ("data_parallel_size" in low or "dp_size" in low) else None
        if m:
            dp = int(m.group(1) or m.group(2))
        m = _DISABLE_AR.search(text_l) if disable_ar is None and "disable_custom_all_reduce" in low else None
        if m:
            disable_ar = next(g for g in m.groups() if g) == "True"
        if "cumem host allocations do not appear" in low or "get_mempolicy: operation not permitted" in low:
            cumem.append(text_l)
        if is_nccl_warning(text_l):
            warns.append(text_l)
        m = _MODEL.search(text_l) if not model and "model" in low else None
        if m:
            model = m.group(1)
        m = _LOCAL_RANKS.search(text_l) if "localRanks" in text_l else None
        if m:
            local_ranks = max(local_ranks, int(m.group(1)))
        m = _COMM_RANKS.search(text_l) if "ranks" in low else None
        if m:
            comm_ranks = max(comm_ranks, int(m.group(2) or m.group(3)))
            if m.group(1) is not None and len(members) < 4096:
                comm_id = _COMM_ID.search(text_l)
                members.append((host.group(1) if host else "", int(host.group(2)) if host else 0, int(m.group(1)),
                                int(m.group(2)),
                                comm_id.group(1) if comm_id else "", text_l[:300]))
        m = _NNODES.search(text_l) if "nNodes" in text_l else None
        if m and len(node_counts) < 64:
            node_counts.append((int(m.group(2)), int(m.group(1)), text_l[:300]))
        if "Trees" in text_l and len(branches) < 4 and any(d1 != "-1" or d2 != "-1" for d1, d2 in _TREE.findall(text_l)):
            branches.append(text_l[:300])
        m = _VLLM_NODES.search(text_l) if "nodes in the distributed" in text_l else None
        if m and len(node_counts) < 64:
            node_counts.append((int(m.group(1)), 0, text_l[:300]))
        m = _TORCHRUN.search(text_l) if "torchrun" in low else None
        if m and len(node_counts) < 64:
            nnodes = _TORCHRUN_NNODES.search(m.group(0))
            most = nnodes.group(1).split(":")[-1] if nnodes else "1"
            if most.isdecimal():
                node_counts.append((int(most), 0, text_l[:300]))
        m = _TP_BEYOND_NODE.search(text_l) if "is bigger than a reserved number" in text_l else None
        if m and len(beyond_node) < 8:
            beyond_node.append((int(m.group(1)), int(m.group(2)), text_l[:400]))
        if not kv_transfer and ("kv" in low or "disaggregation" in low or "connector" in low):
            kv_transfer = bool(_KV_TRANSFER.search(text_l))
        if "nvls" in low and len(nvls) < 4 and NCCL_LINE.search(text_l) and _NVLS_UP.search(text_l):
            nvls.append(text_l[:300])
        m = _VLLM_WORLD.search(text_l) if "world_size=" in text_l else None
        if m:
            world_size = max(world_size, int(m.group(1)))
        m = _MQ_HANDLE.search(text_l) if "local_reader_ranks=" in text_l else None
        if m and m.group(2) and len(mq_shared) < 8:
            # The writer (rank 0 of a group where no reader is 0, else the executor) and every reader share it.
            readers = {int(r) for r in m.group(1).replace(",", " ").split()}
            if len(readers | {0}) >= 2:
                mq_shared.append((len(readers | {0}), text_l[:300]))
        m = _BUS_ID.search(text_l) if "busId" in text_l else None
        bdf = from_nccl_bus_id(m.group(1)) if m else ""
        if bdf and bdf not in bus_ids:
            bus_ids.append(bdf)
        if any(w in low for w in _KERNEL_WORDS) and len(kernel_lines) < 20 and text_l not in kernel_lines:
            kernel_lines.append(text_l[:400])
        for key, value in (_KERNEL_SETTING.findall(text_l) if _RESOLVED_CONFIG.search(text_l) or "non-default args"
                           in low or "with config:" in low else ()):
            if value != "None":
                kernel_settings["--" + key.replace("_", "-")] = value
        m = _LAUNCHER_OMP.search(text_l) if launcher_omp is None and "OMP_NUM_THREADS" in text_l else None
        if m:
            launcher_omp = (m.group(1) or m.group(2), text_l)
        for home in cpu_homes(text_l) if " :GPU/" in text_l and "CPU/" in text_l and len(homes) < 256 else ():
            on = m.group(1) if (m := _NCCL_HOST.match(text_l)) is not None else ""
            if (home, on) not in homes_seen:  # each GPU and CPU of a host once, from the first line that shows it
                homes_seen.add((home, on))
                homes.append((*home, text_l[:400]))
        m = _PATH_DUMP.search(text_l) if " :GPU/" in text_l else None
        if m and len(paths) < 4096:
            for peer, kind in _PATH_PEER.findall(m.group(2)):
                if peer.lower() != m.group(1).lower():
                    paths[(m.group(1).lower(), peer.lower())] = kind
            for device, kind in _PATH_NET.findall(m.group(2)):
                nets[(m.group(1).lower(), device)] = kind
            net_listed = net_listed or "NET/" in m.group(2)  # any format (`NET/0`, `NET/0-0`)
            if "NET/" not in m.group(2) and _PATH_NO_NET.search(m.group(2)) and len(netless_lines) < 4:
                netless_lines.append(text_l[:400])
            if len(path_lines) < 4:
                path_lines.append(text_l[:400])
        if engine == "trtllm" and "[TensorRT-LLM][" in text_l:
            m = _TRTLLM_MPI.search(text_l) if "MPI size: " in text_l else None
            if m:
                world_size = max(world_size, int(m["size"]))
                local_ranks = max(local_ranks, int(m["local"] or 0))
            m = _TRTLLM_RANK.search(text_l) if "rank" in low else None
            if m and len(ranks) < 64 and (rank := f"rank={m['rank'] or m['r2'] or m['r3']}") not in ranks:
                ranks.append(rank)
            m = _TRTLLM_RANK_GPU.search(text_l) if "is using GPU" in text_l else None
            if m and len(rank_gpus) < 64 and (pair := (int(m[1]), int(m[2]))) not in rank_gpus:
                rank_gpus.append(pair)
            m = _TRTLLM_ENGINE_SIZE.search(text_l) if "engine size" in low else None
            if m and (engine_size is None or int(m[1]) > engine_size[0]):
                engine_size = (int(m[1]), text_l)
        m = GGML_MLOCK_FAILED.search(text_l) if mlock_failed is None and "failed to mlock" in text_l else None
        if m:
            mlock_failed = (int(m["size"]) + int(m["locked"]), text_l[:300])
        m = _DECODE_GRAPH.search(text_l) if "cuda graph:" in text_l else None
        if m and len(decode_batches) < 10000:
            decode_batches.append((int(m.group(1)), m.group(2) == "True"))
            if m.group(2) == "False" and len(decode_eager) < 5:
                decode_eager.append(text_l)
    if not graphs and v0_sizes_line and not any(_V0_SIZES_DOUBT.search(ln) for ln in relevant
                                                if "model runner" in ln or "eager mode" in ln):
        graphs = "configured"  # vLLM V0 filled its capture sizes: eager mode was off
        graph_lines.append(v0_sizes_line)
    if not graphs and namespace_line and _namespace_keeps_graphs(namespace_line, vllm_version):
        graphs = "flags"  # the parsed flags leave vLLM's default, graphs on
        graph_lines.append(namespace_line)
    if world_size == 1:
        # vLLM's torch.distributed world holds every TP, PP and DP rank of the engine (parallel_state.py's
        # initialize_model_parallel groups all ranks as DP x PP x TP): a world of one rank is TP 1 and one stage (corpus
        # 2616: `world_size=1 rank=0`).
        tp, pp = tp or 1, pp or 1
    tree = parse_nccl_topo_tree(relevant) if any(_TREE_START.search(ln) or _TREE_CPU_ROOT.search(ln) for ln in relevant
                                                     if "=== System" in ln or "CPU/" in ln) else None
    if tree is not None and not path_lines:
        path_lines = list(tree.lines[:4])
    tgi = TGI_IMAGE_LABEL.search(text) if "Docker label" in text else None
    dynamo_line = next((ln for ln in relevant if DYNAMO_CONFIG in ln and console_engine(ln) == "vllm"), "")
    return ServingLog(
        dynamo_workers=dynamo_workers(dynamo_line) if dynamo_line else (), dynamo_line=dynamo_line,
        tgi_image=tgi.group(1) if tgi else "", tgi_image_smi=bool(tgi and tgi.group(2) is not None),
        engine=engine, line_count=len(relevant), custom_ar_disabled=tuple(ar), p2p_cache_paths=tuple(cache_paths),
        p2p_cache_generated=generated, p2p_check_skipped=skipped, p2p_failures=tuple(p2p_fail), nccl_version=version, nccl_cuda=nccl_cuda,
        driver_cuda=driver_cuda, cuda_lines=tuple(cuda_lines), rccl_lines=tuple(rccl),
        vllm_version=vllm_version, sglang_dated_line=sglang_dated, vllm_early_stats_line=vllm_early_stats,
        vllm_2023_stats_line=vllm_2023_stats,
        channels=tuple(channels), nccl_hosts=_written_apart(hosts, host_pids), nccl_devices=tuple(sorted(devices)),
        nccl_rings_line=rings_line, nccl_pids=tuple(pids), nccl_addresses=tuple(addresses), nccl_env=nccl_env, nccl_net=tuple(net),
        gdr=tuple(gdr), gpu_affinity=tuple(affinity.values()), cuda_graphs=graphs, cuda_graph_lines=tuple(graph_lines[:5]), tp_size=tp,
        pp_size=pp, dp_size=dp,
        disable_custom_all_reduce=disable_ar, cumem_fallback=tuple(cumem), nccl_warnings=tuple(warns[:20]),
        local_ranks=local_ranks, comm_ranks=comm_ranks, comm_members=tuple(members), node_counts=tuple(node_counts),
        tree_branches=tuple(branches),
        world_size=world_size, mq_shared=tuple(mq_shared), nvls_lines=tuple(nvls), kv_transfer=kv_transfer, tp_beyond_node=tuple(beyond_node), gpu_bus_ids=tuple(bus_ids), model=model, decode_graph_batches=tuple(decode_batches),
        decode_graph_lines=tuple(decode_eager), kernel_settings=tuple(kernel_settings.items()),
        kernel_lines=tuple(kernel_lines), launcher_omp=launcher_omp,
        gpu_paths=tuple((a, b, kind) for (a, b), kind in paths.items()), gpu_path_lines=tuple(path_lines),
        gpu_homes=tuple(homes),
        gpu_nets=tuple((g, n, kind) for (g, n), kind in nets.items()) or (tree.nets if tree else ()),
        topo_tree=tree, netless_path_lines=() if net_listed else tuple(netless_lines),
        custom_ar_registered=tuple(ar_registered),
        custom_ar_ranks=tuple(ar_ranks), custom_ar_errors=tuple(ar_errors), graph_ranks=tuple(graph_ranks),
        ranks=tuple(ranks), gpu_layers=gpu_layers, no_vram_line=no_vram_line, model_fit=model_fit, ollama_windows_line=windows_line,
        ollama_gpus=ollama_gpus, ggml_cuda_devices=tuple(ggml_devices), ggml_cuda_line=ggml_line,
        ggml_one_gpu=ggml_one_gpu_buffers(lines) if engine == "llamacpp" else "",
        ggml_other_devices=tuple(other_devices),
        ggml_cuda_archs=tuple(ggml_archs.items()), ggml_use_graphs=tuple(ggml_graphs.items()),
        ggml_graphs_line=ggml_graphs_line, ggml_threads=ggml_threads, ggml_no_gpu_backend=ggml_no_backend,
        llamacpp_release=release, llamacpp_release_line=release_line,
        triton_line=triton_line, rank_gpus=tuple(rank_gpus), engine_size=engine_size,
        mlock_failed=mlock_failed)


@parser(ENGINE_LOG, feeds="serving_log", kind=ServingLog, rank=10)
def serving_log(text: str) -> ServingLog:
    """What a pasted vLLM/SGLang server log and NCCL INFO log say (custom all-reduce, P2P, transports, graphs).

    Input (tests/data/captures/67, four of its lines)::

        INFO 05-26 03:09:20 [api_server.py:1289] vLLM API server version 0.9.1.dev21+gd0bc2f810
        INFO 05-26 03:09:21 [cli_args.py:300] non-default args: {'tensor_parallel_size': 2, 'data_parallel_size': 2}
        INFO 05-26 03:09:32 [config.py:1869] Defaulting to use mp for distributed inference
        INFO 05-26 03:09:32 [cuda.py:156] Data Parallel: Forcing enforce eager to be True since DP is currently not supported with CUDA Graphs.
    """
    return parse_serving_log(text)


# --- the run's date ----------------------------------------------------------------------------

# A timestamp with its year, as a log line carries it (Ray's `2023-09-21 09:59:38,239`, a platform's
# `[2023-10-30 14:14:08]`, ISO `2023-12-28T13:17:07`); vLLM's own `INFO 09-21 09:59:40` has no year.
_DATED = re.compile(r"(?<![\d-])(20\d\d-[01]\d-[0-3]\d)[ T]\d\d:\d\d:\d\d")


@dataclass(frozen=True, kw_only=True)
class LogDate(Sourced):
    """The earliest day a pasted log's timestamps name (YYYY-MM-DD), with its line: the run was on or after it, so an
    engine release it ran was published before the latest of its days (facts/applicability.ENGINE_FEATURES_SINCE).
    Where no log is dated, nvidia-smi's date line above its table (the host looked at that day, with the engine the
    same paste shows) is the weakest source."""

    day: str
    line: str


fact("log_date", LogDate, first_of, hint="paste the engine's log with its timestamps")


def parse_log_date(text: str) -> LogDate:
    """The earliest dated timestamp of a log's lines (_DATED)."""
    found = sorted((m.group(1), line.strip()) for line in text.splitlines() for m in [_DATED.search(line)] if m)
    if not found:
        raise ParseError("no timestamp with a year in the log")
    return LogDate(day=found[0][0], line=found[0][1][:300])


@parser(ENGINE_LOG, feeds="log_date", kind=LogDate, rank=10)
def log_date_from_engine_log(text: str) -> LogDate:
    """The earliest day the engine log's timestamps name.

    Input (tests/data/captures/903)::

        [2023-10-30 14:14:10] WARNING 10-30 06:14:10 config.py:351] Casting torch.bfloat16 to torch.float16.
    """
    return parse_log_date(text)


@parser(RAY_LOG, feeds="log_date", kind=LogDate, rank=20)
def log_date_from_ray_log(text: str) -> LogDate:
    """The earliest day a pasted Ray log's timestamps name.

    Input (tests/data/captures/897)::

        2023-09-21 09:59:39,380\tINFO worker.py:1642 -- Started a local Ray instance.
    """
    return parse_log_date(text)


# The date line nvidia-smi prints above its table (`%a %b %e %H:%M:%S %Y`: `Mon Jun  5 16:09:59 2023`).
_SMI_DATE = re.compile(r"^\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+"
                       r"(\d{1,2}) \d\d:\d\d:\d\d (20\d\d)\s*$")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@parser(NVSMI_TABLE, feeds="log_date", kind=LogDate, rank=30)
def log_date_from_nvidia_smi(text: str) -> LogDate:
    """The day nvidia-smi's date line names, above its table: the host was up on that day, the weakest of the dates
    (a log's own timestamps date the run itself).

    Input (tests/data/captures/1159)::

        Mon Jun  5 16:09:59 2023
    """
    found = sorted((f"{m.group(3)}-{_MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}", line.strip())
                   for line in text.splitlines()[:40] for m in [_SMI_DATE.match(line)] if m)
    if not found:
        raise ParseError("no date line above the nvidia-smi table")
    return LogDate(day=found[0][0], line=found[0][1])


# --- vLLM P2P cache --------------------------------------------------------------------------


@dataclass(frozen=True)
class P2pCacheFile:
    path: str
    visible_devices: str  # the CUDA_VISIBLE_DEVICES suffix of the name
    entries: dict[str, bool]  # "0->1": False

    @property
    def failed(self) -> list[str]:
        return sorted(k for k, v in self.entries.items() if not v and k.split("->")[0] != k.split("->")[-1])


@dataclass(frozen=True)
class VllmP2pCache:
    files: tuple[P2pCacheFile, ...]
    searched: tuple[str, ...] = ()


_CACHE_NAME = re.compile(r"^gpu_p2p_access_cache_for_(.*)\.json$")


def parse_p2p_cache(text: str) -> dict[str, bool]:
    """The JSON vLLM writes: {"0->0": true, "0->1": false, ...}."""
    try:
        data = load_json(text, "vLLM P2P cache")
    except ValueError as exc:
        raise ParseError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise ParseError("not a vLLM P2P cache (an object of \"i->j\": bool)")
    out: dict[str, bool] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not re.fullmatch(r"\d+->\d+", key) or not isinstance(value, bool):
            raise ParseError("not a vLLM P2P cache (an object of \"i->j\": bool)")
        out[key] = value
    return out


def _cache_dirs(procs: ServingProcesses | None) -> list[tuple[ProcessInfo | None, str]]:
    """Where vLLM keeps its P2P cache: the running vLLM processes' cache roots (through their own
    filesystem view). The audit's own only where no vLLM process runs (another user's cache does
    not steer the running engine); root's where no vLLM process shows its environment."""
    dirs: list[tuple[ProcessInfo | None, str]] = []
    engines = procs.by_engine("vllm") if procs is not None else []
    candidates = [p for p in engines if p.environ is not None]
    if not engines and procs is not None and procs.current is not None:
        candidates.append(procs.current)
    for proc in candidates:
        env = proc.environ or {}
        root = env.get("VLLM_CACHE_ROOT")
        if not root:
            base = env.get("XDG_CACHE_HOME") or posixpath.join(env.get("HOME", "/root"), ".cache")
            root = posixpath.join(base, "vllm")
        if all(root != d for _, d in dirs):
            dirs.append((proc if proc.pid else None, root))
    engine_dirs = any(p.engine == "vllm" for p in candidates)
    if not engine_dirs and all(d != "/root/.cache/vllm" for _, d in dirs):
        dirs.append((None, "/root/.cache/vllm"))
    return dirs


@provider("vllm_p2p_cache", VllmP2pCache)
def vllm_p2p_cache(ctx: FactContext) -> VllmP2pCache:
    """vLLM's cached real P2P probe results (gpu_p2p_access_cache_for_*.json under VLLM_CACHE_ROOT)."""
    host = ctx.host
    procs = ctx.optional("serving_processes", ServingProcesses)
    files: list[P2pCacheFile] = []
    searched: list[str] = []
    answered = False
    for proc, root in _cache_dirs(procs):
        seen = process_path(host, proc.pid, root) if proc is not None else root
        if seen is None:
            continue
        searched.append(root)
        try:
            names = host.list_dir(seen)
            answered = True
        except FileNotFoundError:
            answered = True
            continue
        except (OSError, NotCaptured):
            continue
        for name in names:
            m = _CACHE_NAME.match(name)
            if not m:
                continue
            try:
                text = read_optional(host, posixpath.join(seen, name))
                if text is not None:
                    files.append(P2pCacheFile(posixpath.join(root, name), m.group(1), parse_p2p_cache(text)))
            except (ParseError, OSError, NotCaptured):
                continue
    if not answered:
        raise FactUnavailable("vLLM's cache directory is not readable in this source",
                              "look for ~/.cache/vllm/gpu_p2p_access_cache_for_*.json of the engine's user")
    return VllmP2pCache(tuple(files), tuple(searched))


# --- nccl-tests command lines -------------------------------------------------------------------

# A test binary of nccl-tests (src/*.cu: all_reduce, all_gather, alltoall, broadcast, gather, hypercube, reduce,
# reduce_scatter, scatter, sendrecv), `_mpi` where built for MPI.
TEST_PROGRAMS = (r"(?:all_reduce|all_gather|alltoall|broadcast|gather|hypercube|reduce_scatter|reduce|scatter|sendrecv)"
                 r"_perf(?:_mpi)?")
# `NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -g 4`, `mpirun -x NCCL_IB_DISABLE=1 all_reduce_perf_mpi`:
# the variables set before the program are the run's.
TEST_PROGRAM = re.compile(rf"(?:^|[\s/*`])({TEST_PROGRAMS})(?=[\s`*]|$)")
_NCCL_ASSIGN = re.compile(r"(?:^|[\s*`])(NCCL_[A-Z0-9_]+)=([^\s*`]+)")
# Open MPI's `-x NAME` without a value exports the launching shell's value of NAME to the ranks, which the line does
# not show (https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html, `-x`).
_NCCL_PASSED = re.compile(r"(?:^|\s)-x\s+(NCCL_[A-Z0-9_]+)(?=\s|$)")
# nccl-tests' own failure lines (src/common.h): CUDACHECK and NCCLCHECK print `HOST: Test CUDA failure FILE:LINE 'error'`
# (`Test NCCL failure FILE:LINE 'error / detail'`), and each TESTCHECK on the way out ` .. HOST pid N: Test failure
# FILE:LINE` (nccl-tests#263, #289); a paste may cut the first inside its source file (`ubuntu: Test NCCL failure commo`,
# corpus 2307). https://github.com/NVIDIA/nccl-tests/blob/master/src/common.h
TEST_FAILURE = re.compile(r"^\s*(?P<host>\S+): Test (?:CUDA|NCCL) failure \S+:\d+ '(?P<error>[^']*)|"
                          r"^\s*\S+: Test (?:CUDA|NCCL) failure(?: [\w.]*)?\s*$|"
                          r"^\s*\.\. \S+ pid \d+: Test failure \S+:\d+")


_VISIBLE = re.compile(r"(?:^|[\s*`])CUDA_VISIBLE_DEVICES=([^\s*`]+)")

# A result row of nccl-tests' table (src/common.cu): size count type ...
TEST_ROW = re.compile(r"^\s*\d+\s+\d+\s+(float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64)\b")
# A whole result row: size count type redop root, then time algbw busbw #wrong out-of-place and in-place (13
# columns; `#wrong` is N/A when the test ran with -c 0). Rows pasted without the header (corpus 446) open a run.
FULL_ROW = re.compile(TEST_ROW.pattern + r"\s+\w+\s+-?\d+(?:\s+\d+(?:\.\d+)?\s+\d+(?:\.\d+)?\s+\d+(?:\.\d+)?"
                      r"\s+(?:\d+|N/A)){2}\s*$")


def wrong_counts(row: str) -> tuple[int, ...]:
    """The `#wrong` counts of a whole result row (FULL_ROW), out-of-place and in-place; N/A (run with -c 0) left out."""
    cols = row.split()
    return tuple(int(c) for c in (cols[8], cols[12]) if c.isdecimal())


def row_busbw(row: str) -> float:
    """The higher bus bandwidth (GB/s) of a whole result row (FULL_ROW), out-of-place or in-place."""
    cols = row.split()
    return max(float(cols[7]), float(cols[11]))


@dataclass(frozen=True)
class TestGroup:
    """The GPUs one pasted test run used: its rank lines' CUDA device numbers, their models, and the
    CUDA_VISIBLE_DEVICES its command line sets (None where no command line of it shows one); the host each rank line
    names, and whether the list holds every rank of the run (`whole`, _test_groups)."""

    devices: tuple[int, ...]
    models: tuple[str, ...]
    visible: tuple[str, ...] | None = None
    hosts: tuple[str, ...] = ()
    whole: bool = False
    lines: tuple[str, ...] = ()  # the first rank line on each host, verbatim
    # The GPUs of one process its header states (`nThread 1 nGpus 8`: 8), 0 where no header is shown over the list;
    # and whether the list runs from rank 0 without a gap.
    per_process: int = 0
    numbered: bool = True

    @property
    def cut(self) -> bool:
        """Whether the list may leave out GPUs of a host it names: it does not start at rank 0 (a list that starts at
        rank 71, corpus 1407), or no host it names shows as many GPUs as one process of the run uses (corpus 1414)."""
        per_host = max(Counter(self.hosts).values(), default=0)
        return not self.whole and (not self.numbered or self.per_process > per_host)

    @property
    def across_hosts(self) -> tuple[tuple[str, ...], int | None]:
        """The GPUs its rank lines show on two hosts or more, each as `HOST GPU D`, and the GPUs the run holds over
        the hosts shown (each host's process takes the header's nGpus: `nThread 1 nGpus 8` on two hosts is 16, corpus
        1847), None where no header states them; ((), None) for a run on one host."""
        if len(set(self.hosts)) < 2 or len(self.hosts) != len(self.devices):
            return (), None
        shown = tuple(dict.fromkeys(f"{h} GPU {d}" for h, d in zip(self.hosts, self.devices, strict=True)))
        return shown, len(set(self.hosts)) * self.per_process if self.per_process else None

    def gpus(self, count: int) -> tuple[int, ...] | None:
        """The nvidia-smi indices of the run's GPUs on a host of `count` GPUs, or None where the source does not
        settle them.

        CUDA numbers the GPUs it sees in PCI order when they are one model, as nvidia-smi does. A
        CUDA_VISIBLE_DEVICES of indices maps each device number to the GPU it names. Without one shown, a run whose
        highest device is the host's last GPU sees every GPU, so its device numbers are the host's. A run on
        fewer devices may run under a CUDA_VISIBLE_DEVICES set elsewhere, which the source does not show.
        """
        if not self.devices or len(set(self.models)) != 1:
            return None
        if self.visible is not None:
            if not all(v.isdecimal() for v in self.visible) or max(self.devices) >= len(self.visible):
                return None
            return tuple(int(self.visible[d]) for d in self.devices)
        return self.devices if max(self.devices) + 1 == count else None


@dataclass(frozen=True, kw_only=True)
class NcclTestRuns(Sourced):
    """The pasted nccl-tests runs that show their command line: (program, the NCCL_* variables set on it); and
    each run's GPUs (`groups`), from its `# Rank N ... device M` lines."""

    runs: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    groups: tuple[TestGroup, ...] = ()
    # Each `Test CUDA failure ... 'invalid device ordinal'` line, with what its run asked of one host: (the line,
    # processes on the host or None where the launch does not say, threads per process, GPUs per thread).
    ordinal_failures: tuple[tuple[str, int | None, int, int], ...] = ()
    unstarted: tuple[int, ...] = ()  # the runs (indices of `runs`) that failed so, choosing their GPUs
    # NCCL_* variables a launcher passes from its shell without showing their value (`mpirun -x NCCL_ALGO`).
    passed: tuple[str, ...] = ()
    # The command lines whose launcher places the run's processes on two hosts or more (`mpirun -H a:8,b:8`).
    launched_apart: tuple[str, ...] = ()
    # The result rows whose data check ran (a `#wrong` count, not N/A), verbatim: each count 0 (`checked_rows`), or
    # some count above 0 (`wrong_rows`). nccl-tests checks each size's result against the expected values with -c 1,
    # its default (src/common.cu), and prints the count of wrong elements in the row.
    checked_rows: tuple[str, ...] = ()
    wrong_rows: tuple[str, ...] = ()
    # The GPUs that two or more processes of one launch opened (shared_devices): (host, `device D [bus]`, the pids of
    # its first two processes, their rank lines); and the GPUs that launch's processes ask for in all, None where its
    # command line is not shown or does not count its processes (`mpirun -np 16 ... -g 1`: 16).
    shared: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = ()
    shared_asked: int | None = None

    @property
    def none_started(self) -> bool:
        """Every run whose command line is shown failed with 'invalid device ordinal' while choosing its GPUs, before
        it created an NCCL communicator (src/common.cu sets each device before ncclCommInitAll): the NCCL variables
        on those lines shaped no collective."""
        return bool(self.runs) and len(set(self.unstarted)) == len(self.runs)

    def asked_beyond(self, count: int | None) -> tuple[str, int | None, int, int, int] | None:
        """A run that failed with 'invalid device ordinal' after asking one host for more GPUs than `count` (the
        host's GPUs the source shows; where it shows none, more than any one NVIDIA system holds, HOST_GPUS_AT_MOST):
        (its failure line, processes or None where the launch does not say, threads, GPUs per thread, the bound);
        None where no run did.

        nccl-tests gives each process nThreads x nGpus devices from localRank x nThreads x nGpus on (src/common.cu),
        so a host needs processes x threads x GPUs of them; an ordinal past CUDA's count fails cudaSetDevice.
        """
        bound = count if count is not None else HOST_GPUS_AT_MOST
        # A launch that does not say how many processes share a host (a hostfile) still starts one on the host that
        # failed: one is the least it asked.
        return next(((line, procs, threads, ngpus, bound) for line, procs, threads, ngpus in self.ordinal_failures
                     if (procs or 1) * threads * ngpus > bound), None)

    def group(self, count: int) -> tuple[int, ...] | None:
        """The nvidia-smi indices of the GPUs the pasted test runs used on one host, when every run that settles
        them used the same ones (TestGroup.gpus); None otherwise."""
        settled = {g for g in (t.gpus(count) for t in self.groups if len(set(t.hosts)) <= 1) if g is not None}
        return settled.pop() if len(settled) == 1 else None

    def hosts_apart(self) -> tuple[str, ...]:
        """The rank lines of a run whose ranks sit on two hosts or more (one line per host), else the command line
        of a run its launcher's host list spreads over two hosts or more where no rank list is shown whole (a list
        cut on its first host, corpus 773; a build without MPI starts one independent run per process, each whole on
        its host, corpus 672), or ()."""
        return next((t.lines[:2] for t in self.groups if len(set(t.hosts)) > 1),
                    () if any(t.whole for t in self.groups) else self.launched_apart[:1])

    def one_host_runs(self) -> tuple[str, ...]:
        """The first rank line of each run where every run shown lists all its ranks on one named host, else ()."""
        # A redacted host name (`<host>`, `nccl-<id>-worker-0`) may stand for several hosts. A name in words, which no
        # host has (`NODE A`, corpus 1391), is the user's label for one node of several: it settles no single node.
        if not self.groups or not all(t.whole and len(set(t.hosts)) == 1 and t.hosts[0] and "<" not in t.hosts[0]
                                      and not any(c.isspace() for c in t.hosts[0]) for t in self.groups):
            return ()
        return tuple(t.lines[0] for t in self.groups)[:2]


fact("nccl_test_runs", NcclTestRuns, first_of, hint=NCCL_TESTS.hint)

# The most GPUs one NVIDIA system holds in one host: the sixteen of a DGX-2 (NVSwitch-joined V100).
# https://docs.nvidia.com/dgx/dgx2-user-guide/introduction-to-dgx2.html
HOST_GPUS_AT_MOST = 16
# nccl-tests' options for threads per process and GPUs per thread (`-t 1 -g 8`, `--nthreads`, `--ngpus`), and the
# header that echoes them (`# nThread 1 nGpus 8`).
_TEST_SIZE_OPTION = re.compile(r"(?:^|\s)(?:-(?P<short>[gt])|--(?P<long>ngpus|nthreads))(?:\s+|=)(?P<n>\d+)(?=\s|$)")
# How many processes a launcher starts on each host: Open MPI's `--host a:8,b:8` slots, `-npernode 8`, `--map-by
# ppr:8:node`; Slurm's `--ntasks-per-node=8`. https://docs.open-mpi.org/en/main/launching-apps/scheduling.html
_HOST_SLOTS = re.compile(r"(?:^|\s)(?:--host|-H)[\s=]+(?P<hosts>\S+)")
_PER_NODE = re.compile(r"(?:^|\s)(?:(?:-{1,2}npernode|--ntasks-per-node)[\s=]+(?P<n>\d+)|--map-by\s+ppr:(?P<ppr>\d+):node\b)")
_HOST_LIST = re.compile(r"(?:^|\s)(?:--host|-H|-{1,2}hostfile|--machinefile|-machinefile)(?:\s|=)")


def _processes_per_host(command: str) -> int | None:
    """How many test processes the command line starts on one host: 1 without a launcher (RANK_LAUNCHERS), the most
    slots its `--host` list gives one host, its per-node count, or mpirun's rank count (`-np 8`) where no host list
    sends them elsewhere; None where the line does not say (srun without a per-node count, a hostfile)."""
    words = command.split()
    at = next((k for k, w in enumerate(words) if posixpath.basename(w) in RANK_LAUNCHERS), None)
    if at is None:
        return 1
    if (m := _PER_NODE.search(command)) is not None:
        return int(m.group("n") or m.group("ppr"))
    if (m := _HOST_SLOTS.search(command)) is not None:
        return max(int(h.rsplit(":", 1)[1]) if re.fullmatch(r"[^:,]+:\d+", h) else 1 for h in m.group("hosts").split(","))
    if posixpath.basename(words[at]) != "srun" and not _HOST_LIST.search(command):
        return launcher_ranks(words[at:])
    return None

_RANK_NUMBER = re.compile(r"\bRank\s+(\d+)")
# The header's sizes: `# nThread 1 nGpus 8 minBytes ...`, or the form later builds print without the thread count,
# `# nGpus(perProc) 8 minBytes ...` (one thread: the process's GPUs, corpus 1414).
_TEST_SIZES = re.compile(r"\bnThread\s+(\d+)\s+nGpus\s+(\d+)|\bnGpus\s*\(perProc\)\s+(\d+)")


def header_sizes(line: str) -> tuple[int, int] | None:
    """(threads per process, GPUs per thread) the nccl-tests header on `line` states; None where it is no header."""
    m = _TEST_SIZES.search(line)
    if m is None:
        return None
    return (int(m.group(1)), int(m.group(2))) if m.group(1) else (1, int(m.group(3)))


def _test_groups(text: str) -> tuple[TestGroup, ...]:
    """Each run's rank lines, with the CUDA_VISIBLE_DEVICES of the command line above them.

    A command line or an `nThread` line after rank lines opens the next run, and so does a rank number met again
    (each process of a build without MPI lists its own ranks from 0, corpus 672).
    nccl-tests prints a run's list whole, in rank order, from its main process. A list shown is whole where its
    ranks run from 0 without a gap and a later line of the output follows it. A list that ends the excerpt is whole
    where each process printed its own header (two `nThread` lines before the lists: a build without MPI, whose
    every process is a run of nThread x nGpus ranks) and the list holds that many ranks.
    """
    # Each run: (visible, headers before its lists, ranks per process, [(host, device, model, rank, line)], closed)
    runs: list[tuple[tuple[str, ...] | None, int, int, list[tuple[str, int, str, int, str]], list[bool]]] = [
        (None, 0, 0, [], [False])]
    for line in text.splitlines():
        command = TEST_PROGRAM.search(line)
        sizes = header_sizes(line)
        if command is not None or "nThread" in line or sizes is not None:
            # A header after rank lines without its own command line runs under a CUDA_VISIBLE_DEVICES not shown.
            m = _VISIBLE.search(line) if command is not None else None
            visible = tuple(v.strip() for v in m.group(1).split(",") if v.strip()) if m else None
            per = sizes[0] * sizes[1] if sizes else 0
            if runs[-1][3]:
                runs[-1][4][0] = True
                runs.append((visible, 1 if sizes else 0, per, [], [False]))
            elif command is not None:
                runs[-1] = (visible, runs[-1][1], runs[-1][2], [], [False])
            elif sizes:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1, per, [], [False])
            continue
        m = RANK_DEVICE.search(line)
        number = _RANK_NUMBER.search(line) if m is not None else None
        if m is not None and number is not None:
            rank = int(number.group(1))
            if any(r == rank for _, _, _, r, _ in runs[-1][3]):
                runs[-1][4][0] = True
                runs.append((runs[-1][0], runs[-1][1], runs[-1][2], [], [False]))
            runs[-1][3].append((m["host"] or "", int(m["device"]), m["model"], rank, line.strip()))
        elif line.strip() and runs[-1][3]:
            runs[-1][4][0] = True
    groups = []
    for visible, headers, per, ranks, closed in runs:
        if not ranks:
            continue
        numbered = [r for _, _, _, r, _ in ranks] == list(range(len(ranks)))
        whole = numbered and (closed[0] or (headers > 1 and len(ranks) == per))
        first = {h: line for h, _, _, _, line in reversed(ranks)}
        groups.append(TestGroup(tuple(d for _, d, _, _, _ in ranks), tuple(mod for _, _, mod, _, _ in ranks), visible,
                                tuple(h for h, _, _, _, _ in ranks), whole,
                                tuple(first[h] for h in dict.fromkeys(h for h, _, _, _, _ in ranks)),
                                per_process=per, numbered=numbered))
    return tuple(groups)


_RANK_PID = re.compile(r"\bPid\s+(\d+)\s")
# The line that ends a run's output: its closing summary (`# Out of bounds values : 0 OK`, `# Avg bus bandwidth : ..`).
_RUN_END = re.compile(r"^\s*#?\s*(?:Out of bounds values|Avg bus bandwidth)\s*:")


def _launch_asks(line: str, program: re.Match[str]) -> int | None:
    """The GPUs a test's command line asks for in all: its launcher's process count (`mpirun -np 16`) times the
    threads and GPUs each process runs (`-t`, `-g`); None where the line starts no launcher or does not count."""
    words = line[:program.start(1)].split()
    at = next((k for k, w in enumerate(words) if posixpath.basename(w) in RANK_LAUNCHERS), None)
    ranks = launcher_ranks(words[at:]) if at is not None else None
    if ranks is None:
        return None
    sizes = {"t": 1, "g": 1}
    for o in _TEST_SIZE_OPTION.finditer(line[program.end(1):]):
        sizes[o.group("short") or o.group("long")[1]] = int(o.group("n"))
    return ranks * sizes["t"] * sizes["g"]


def shared_devices(text: str) -> tuple[tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...], int | None]:
    """The GPUs that two or more processes of one launch opened: rank lines of different Pids that name the same host,
    CUDA device and bus ID, with no command line or run's end between them (one launch's processes print their lists
    at once). A build without MPI started by mpirun runs each process as a one-rank test on the device it picks
    itself, device 0 (nccl-tests#254: every process `Rank 0 ... device 0 [0x1a]`); a per-rank CUDA_VISIBLE_DEVICES
    gives each its own GPU, which its bus ID tells apart. Each GPU as (host, `device D [bus]`, the first two
    processes' pids, their lines); with the GPUs the launch's command line asks for (_launch_asks), None where not
    shown."""
    shared: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {}
    seen: dict[tuple[str, str], dict[str, str]] = {}
    asks: int | None = None
    asked: int | None = None
    for line in text.splitlines():
        program = TEST_PROGRAM.search(line)
        if program is not None or _RUN_END.match(line):
            seen = {}
            asks = _launch_asks(line, program) if program is not None else None
            continue
        m = RANK_DEVICE.search(line)
        pid = _RANK_PID.search(line) if m is not None else None
        if m is None or pid is None or not m["host"]:
            continue
        key = (m["host"], f"device {m['device']} [{m['bus']}]")
        pids = seen.setdefault(key, {})
        pids.setdefault(pid.group(1), line.strip())
        if len(pids) >= 2 and key not in shared:
            shared[key] = tuple(pids)[:2], tuple(pids.values())[:2]
            asked = asks
    return tuple((host, device, ids, lines) for (host, device), (ids, lines) in shared.items()), asked


def nccl_test_groups(text: str) -> tuple[TestGroup, ...]:
    """Each pasted nccl-tests run's rank lines (_test_groups)."""
    return _test_groups(text)


@parser(NCCL_TESTS, feeds="nccl_test_runs", kind=NcclTestRuns, rank=10)
def nccl_test_runs_pasted(text: str) -> NcclTestRuns:
    """The command lines of pasted nccl-tests runs: the program and the NCCL_* variables set before it; and each
    run's GPUs from its rank lines (NCCL 1's `Rank 0 uses device 1` too), with the CUDA_VISIBLE_DEVICES set on
    its command line.

    Input (tests/data/captures/595)::

        # LD_LIBRARY_PATH=/usr/local/lib:/usr/local/cuda/lib64 CUDA_VISIBLE_DEVICES=0,1 ./build/all_reduce_perf  -b 8 -e 128M -f 2 -g 2
        #   Rank  0 Pid 110419 on test-a device  0 [0x3b] Tesla T4
    """
    runs = []
    failures: list[tuple[str, int | None, int, int]] = []
    unstarted: list[int] = []
    passed: list[str] = []
    apart: list[str] = []
    procs: int | None = None  # the processes per host of the run a failure line belongs to (the last command above)
    sizes = {"t": 1, "g": 1}
    for line in text.splitlines():
        m = TEST_PROGRAM.search(line)
        if m is not None:
            runs.append((m.group(1), tuple((n, v.strip("'\"")) for n, v in _NCCL_ASSIGN.findall(line[:m.start(1)]))))
            passed += _NCCL_PASSED.findall(line[:m.start(1)])
            procs, sizes = _processes_per_host(line[:m.start(1)]), {"t": 1, "g": 1}
            if (listed := _HOST_SLOTS.search(line[:m.start(1)])) is not None and len(
                    {h.rsplit(":", 1)[0] for h in listed.group("hosts").split(",") if h}) > 1:
                apart.append(line.strip()[:300])
            for o in _TEST_SIZE_OPTION.finditer(line[m.end(1):]):
                sizes[o.group("short") or o.group("long")[1]] = int(o.group("n"))
        elif (h := header_sizes(line)) is not None:
            sizes = {"t": h[0], "g": h[1]}  # what the run used, as its header echoes it
        elif (f := TEST_FAILURE.match(line)) is not None and f.group("error") == "invalid device ordinal":
            failures.append((line.strip(), procs, sizes["t"], sizes["g"]))
            unstarted += [len(runs) - 1] if runs else []
    groups = _test_groups(text)
    if not runs and not groups and not failures:
        raise ParseError("no nccl-tests command line or rank line")
    rows = [(line.strip(), wrong_counts(line)) for line in text.splitlines() if FULL_ROW.match(line)]
    shared, asked = shared_devices(text)
    return NcclTestRuns(runs=tuple(runs), groups=groups, ordinal_failures=tuple(failures),
                        unstarted=tuple(dict.fromkeys(unstarted)), passed=tuple(dict.fromkeys(passed)),
                        launched_apart=tuple(apart),
                        checked_rows=tuple(r for r, counts in rows if counts and not any(counts)),
                        wrong_rows=tuple(r for r, counts in rows if any(counts)), shared=shared, shared_asked=asked)


@dataclass(frozen=True, kw_only=True)
class NcclNodes(Sourced):
    """Whether the NCCL job a pasted NCCL log or nccl-tests output shows spans nodes: the lines that show ranks on
    two hosts or more (`several`), or the lines that put every rank of it on one host (`one`); both () where the
    source settles neither."""

    several: tuple[str, ...] = ()
    one: tuple[str, ...] = ()
    # Why NCCL sends none of the job's traffic over an RDMA NIC, with the lines that show it; "" where the source
    # does not show that (no_rdma_traffic). On a job shown spanning nodes, only NCCL's word that it opened no HCA.
    no_rdma: str = ""
    no_rdma_lines: tuple[str, ...] = ()

    def rdma_unused(self, multi_node: bool) -> str:
        """no_rdma where it holds for a job that the caller knows spans nodes (`multi_node`, from the engine's flags
        too): there only when this log shows the nodes itself (its no_rdma is then NCCL's word, not an excerpt's
        intra-node channels)."""
        return self.no_rdma if self.several or not multi_node else ""


fact("nccl_nodes", NcclNodes, first_of, hint="paste the NCCL_DEBUG=INFO log of every rank, or the nccl-tests header")


@provider("nccl_nodes", NcclNodes, title="NCCL log, nccl-tests header")
def nccl_nodes(ctx: FactContext) -> NcclNodes:
    """The nodes of the NCCL job the pasted NCCL log and nccl-tests output show (NCCL log, nccl-tests header).

    Several: NCCL lines from two hosts (ServingLog.hosts_apart: two host names, or one interface with two
    addresses), a node count above 1 (NCCL's `nNodes 2`, vLLM's "Detected 2 nodes"), a tree line where a rank has
    a second child (ServingLog.tree_branches), a nccl-tests list whose ranks sit on two hosts, or the user's words
    that the job runs on two nodes or more (_stated_nodes).
    One: the log's own counts (ServingLog.one_node), else nccl-tests lists that each hold every rank of their run on
    one host (NcclTestRuns.one_host_runs), where no engine's log is shown (a test run says nothing of the engine's).
    Neither from an excerpt that could hide other hosts.
    No RDMA traffic (no_rdma_traffic): on a job shown spanning nodes, only from NCCL's own word that it opened no HCA.
    """
    log = ctx.optional("serving_log", ServingLog)
    tests = ctx.optional("nccl_test_runs", NcclTestRuns)
    several_on_ray, one_on_ray = _ray_job_nodes(ctx)
    if log is None and tests is None and not (several_on_ray or one_on_ray):
        raise FactUnavailable("no NCCL log and no nccl-tests output in the source")
    counted = tuple(line for n, _, line in (log.node_counts if log is not None else ())
                    if n > 1 and (_NNODES.search(line) or _VLLM_NODES.search(line)))
    several = ((log.hosts_apart() if log is not None else ()) or counted
               or (log.tree_branches if log is not None else ())
               or (tests.hosts_apart() if tests is not None else ()) or several_on_ray
               or _stated_nodes(ctx, log))
    if several:
        # NCCL's own word that a process of the job opened no HCA holds on every node it logs from; channels all
        # over P2P/SHM do not (an excerpt's intra-node rings).
        why, lines = no_rdma_traffic(log, spans_nodes=True) if log is not None else ("", ())
        return NcclNodes(several=several[:2], no_rdma=why, no_rdma_lines=lines)
    one = log.one_node() if log is not None else ()
    if not one and tests is not None and (log is None or not log.engine):
        one = tests.one_host_runs()
    one = one or one_on_ray
    why, lines = no_rdma_traffic(log) if log is not None else ("", ())
    return NcclNodes(one=one, no_rdma=why, no_rdma_lines=lines)


def _stated_nodes(ctx: FactContext, log: ServingLog | None) -> tuple[str, ...]:
    """The user's sentence that says the job runs on two nodes or more (facts/engine_command.STATED_NODES: `NCCL
    all_reduce on 2 nodes dropped ...`, corpus 2524), in a paste whose NCCL log is an excerpt that does not itself
    put every rank on one node (ServingLog.one_node): the log's own count outweighs the words."""
    from stackaudit.facts.engine_command import StatedEngines

    stated = ctx.optional("stated_engines", StatedEngines)
    if stated is None or not stated.nodes or (log is not None and log.one_node()):
        return ()
    return (f"the user's words: {stated.nodes[:160]!r}",)


def _ray_job_nodes(ctx: FactContext) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(several, one): what `ray status` shows of the nodes of a pasted vLLM command's job whose workers are Ray
    actors (_parse.on_ray), in words.

    Ray places them on the cluster's nodes only (vLLM's ray_utils.initialize_ray_cluster), so a cluster of one node
    holds every rank: one. A cluster of several nodes shows where the job can run, not where it runs: vLLM reserves
    its GPUs in a placement group that Ray packs onto as few nodes as it can. Several only where `ray status -v`
    gives every node's GPUs and the command's TP x PP (as read, _parse.sizes_unread: none unread) is more than any
    node holds. ((), ()) where the source shows neither.
    """
    from stackaudit.facts._parse import on_ray, sizes_from_argv, sizes_unread
    from stackaudit.facts.engine_command import EngineCommands
    from stackaudit.facts.ray_log import RayCluster

    cluster = ctx.optional("ray_cluster", RayCluster)
    commands = ctx.optional("engine_commands", EngineCommands)
    shown = next((c for c in (commands.commands if commands is not None else ())
                  if c.engine == "vllm" and on_ray(c.argv)), None)
    if cluster is None or shown is None:
        return (), ()
    if cluster.nodes == 1:
        return (), (f"{cluster.words}: the engine's Ray workers all run on that node",)
    tp, pp, _ = sizes_from_argv(shown.argv)
    world = (tp or 1) * (pp or 1)
    if cluster.node_gpus and not sizes_unread(shown.argv) and world > max(cluster.node_gpus):
        return (f"{cluster.words} ({', '.join(map(str, cluster.node_gpus))} GPUs on its nodes): the engine's TP x PP "
                f"of {world} on Ray fits on no one node",), ()
    return (), ()


# no_rdma_traffic's reason where every channel stays inside the host: no network at all, not NCCL's choice of one.
INSIDE_THE_HOST = "NCCL carries every channel over P2P/SHM inside the host"

# no_rdma_traffic's reason where NCCL loaded a net plugin over TCP as its network: a plugin for traffic between nodes.
TCP_PLUGIN_NET = "NCCL's network is a net plugin over TCP sockets (Google's FastSocket)"


def no_rdma_traffic(log: ServingLog, spans_nodes: bool = False) -> tuple[str, tuple[str, ...]]:
    """Why a log whose job is not shown spanning nodes moves nothing over RDMA, with its lines; ("", ()) otherwise.

    NCCL's own "NET/IB : No device found", "Failed to open libibverbs" (no verbs library, so no HCA can open) or
    NCCL_IB_DISABLE=1 means it uses no InfiniBand/RoCE device, unless it names the HCAs it uses. So do NET
    channels all `via NET/Socket` (none over an RDMA transport): NCCL's network for the communicator is TCP sockets,
    whatever else the host holds (corpus 589, 1007, 780). Only channel lines are read: a bare `Using network Socket`
    without them stays unread (corpus 431's blind reading keeps it unknown). Channels all
    over P2P/SHM mean every byte stays inside the host, with the same exception. The caller asks only where the
    log does not show the job spanning nodes (two hosts, a node count above 1, a tree that branches between nodes):
    there the channels shown are an excerpt's intra-node rings, and the traffic between nodes is not shown. Where the
    log shows the job spanning nodes (`spans_nodes`), NCCL's own word still holds: a process that opened no HCA
    (no device, no verbs library, NCCL_IB_DISABLE=1) sends its traffic between nodes over TCP sockets.
    """
    ib_used = any(re.search(r"NET/IB\s*:\s*Using", line) for line in log.nccl_net)
    # An RDMA NIC the log shows at work: an HCA NCCL names (not `Using [RO]`), or an EFA device under NCCL's OFI plugin
    # (efa_lines). Beside it, channels `via NET/Socket` are NCCL falling back to TCP from an RDMA NIC it has (corpus
    # 1580), not a job with no RDMA NIC.
    hca_named = any(re.search(r"NET/IB\s*:\s*Using\s*\[\d+\]", line) for line in log.nccl_net) or bool(log.efa_lines())
    no_ib = [line for line in log.nccl_net if re.search(r"NET/IB\s*:\s*No device found|Failed to open libibverbs", line)]
    if no_ib and not hca_named:
        return "NCCL found no InfiniBand/RoCE device", tuple(no_ib[:2])
    if log.nccl_env.get("NCCL_IB_DISABLE") == "1" and not hca_named:
        return "NCCL_IB_DISABLE=1: NCCL uses no InfiniBand/RoCE device", ()
    if (plugin := log.tcp_plugin()) and not hca_named and not any(c.rdma for c in log.channels):
        # NCCL loaded a net plugin over TCP (FastSocket) as its network: it opens no HCA, on every node (corpus 1578).
        return TCP_PLUGIN_NET, (plugin[0],)
    net = [c for c in log.channels if c.transport == "NET"]
    if net and not hca_named and not any(c.rdma for c in log.channels):
        # Every NET channel `via NET/Socket`: a communicator runs all its NET connections over the one network NCCL
        # chose for it (IB first, sockets where no HCA opened), so its traffic between ranks takes TCP sockets.
        return "NCCL carries its network channels over TCP sockets (`via NET/Socket`)", (net[0].line,)
    if not spans_nodes and not ib_used and log.channels and all(c.transport in ("P2P", "SHM") for c in log.channels):
        return INSIDE_THE_HOST, (log.channels[0].line,)
    return "", ()


# --- NCCL variables in the user's words -------------------------------------------------------

# A line that is only an assignment (`NCCL_MAX_NCHANNELS=1`, `export NCCL_ALGO=Ring`), or `export NCCL_X=value` or
# `set NCCL_X=value` inside a sentence ("I adhoc patched with export NCCL_SOCKET_IFNAME=lo)", "I have tried ... set
# NCCL_P2P_LEVEL=NVL." in NVIDIA/nccl#1609). A sentence's full stop after the value is not the value's.
# A continued command line (`... \\`) is the engine command's, not this.
STATED_NCCL = re.compile(r"^\s*(?:export\s+)?(NCCL_[A-Z0-9_]+)=([^\s\\`*]+)\s*$|"
                         # a YAML mapping's line (Ray's runtime_env `env_vars:`, corpus 1011): `  NCCL_SHM_DISABLE: 1`
                         r"^\s*(NCCL_[A-Z0-9_]+):\s+[\"']?([^\s\\`*\"']+)[\"']?\s*$|"
                         # in a sentence: `export NCCL_X=1`, `set ...`, `setting ...`
                         r"\b(?:export|set|setting)\s+(NCCL_[A-Z0-9_]+)=([^\s\\`*),;]+?)\.?(?=[\s\\`*),;]|$)|"
                         # a transport the run turned off: `P2P disabled for serving with NCCL_P2P_DISABLE=1` (corpus
                         # 1058); `with` before any other variable is advice (`run with NCCL_DEBUG=INFO for details`)
                         r"\bwith\s+(NCCL_[A-Z0-9_]+_DISABLE)=([^\s\\`*),;]+?)\.?(?=[\s\\`*),;]|$)")


# NCCL_PROTO by the protocol's own name in the user's words: `logs for proto=LL.` (corpus 1102, a run the user forced
# to NCCL's LL protocol); NCCL's protocols are LL, LL128 and Simple, and nothing else in an NCCL thread is `proto=`.
STATED_PROTO = re.compile(r"\bproto=(LL128|LL|Simple)\b(?![=\w])", re.I)


# A sentence in which the user names NCCL variables as tries that did not help: `Starting the script using
# `NCCL_IB_DISABLE=1 python tune.py` does not help.` (corpus 916), `We've tried ... various env settings like
# `NCCL_SHM_DISABLE=1` or `NCCL_ALGO=Tree`.` (corpus 895, the question that follows: where to look next). A sentence
# that reports one of them working (`tried NCCL_P2P_DISABLE=1 and it works`) is a fix the user keeps, not a try.
_TRIED = re.compile(r"\btried\b|\b(?:does|did|do)\s*(?:not|n't|n’t)\s+(?:help|work|change|fix|solve)\b|"
                    r"\bno\s+(?:luck|effect|difference)\b", re.I)
_TRIED_WORKED = re.compile(r"\b(?:works|worked|fixe[sd]|solved|resolved|helped|helps)\b", re.I)
_TRIED_ASSIGNMENT = re.compile(r"\b(NCCL_[A-Z0-9_]+)=[\"']?([^\s\\`*\"',;)]+)")


def tried_nccl(line: str) -> tuple[tuple[str, str], ...]:
    """(name, value) of each NCCL variable a sentence of the user's words names as a try that did not help (_TRIED),
    in order; () for any other line, and for a line that stated_nccl reads as a setting (`I have tried ... set
    NCCL_P2P_LEVEL=NVL`, corpus 971: its `set` says it was set, and NCCL's log may show it at work)."""
    if _TRIED.search(line) is None or _TRIED_WORKED.search(line) is not None or STATED_NCCL.search(line) is not None:
        return ()
    return tuple(dict.fromkeys((name, value.rstrip(".")) for name, value in _TRIED_ASSIGNMENT.findall(line)))


# A launcher's option line, alone on its line of a continued command, that passes an NCCL variable into a container
# (`-e "NCCL_SOCKET_IFNAME=ens121f0"/ \\` to vLLM's run_cluster.sh, corpus 2118; `--env NCCL_X=v`): the value is the
# word the shell joins from it, quotes removed and what follows them kept.
_OPTION_NCCL = re.compile(r"^\s*(?:-e|--env)(?:\s+|=)([\"']?NCCL_[A-Z0-9_]+=[^\s\\]*)\s*(?:\\\s*)?$")


def stated_nccl(line: str) -> tuple[str, str] | None:
    """(name, value) of the NCCL variable a line of the user's words sets, or None."""
    if (o := _OPTION_NCCL.match(line)) is not None:
        try:
            words = shlex.split(o.group(1))
        except ValueError:  # an unclosed quote: not a word the shell would pass
            return None
        name, _, value = words[0].partition("=") if len(words) == 1 else ("", "", "")
        return (name, value) if name else None
    m = STATED_NCCL.search(line)
    if m is None and (p := STATED_PROTO.search(line)) is not None and "NCCL_PROTO" not in line:
        return "NCCL_PROTO", p.group(1)
    if m is None:
        return None
    name, value = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5, 7) if m.group(i))
    return name, value


@dataclass(frozen=True, kw_only=True)
class StatedNccl(Sourced):
    """NCCL variables the user says were set (the user's own words), in the order stated."""

    settings: tuple[tuple[str, str], ...] = ()
    # Variables the user names as tries that did not help (tried_nccl): not the run's standing setup.
    tried: tuple[tuple[str, str], ...] = ()


fact("stated_nccl_env", StatedNccl, first_of, hint=USER_NCCL_ENV.hint)


@parser(USER_NCCL_ENV, feeds="stated_nccl_env", kind=StatedNccl, rank=95)
def stated_nccl_env(text: str) -> StatedNccl:
    """NCCL variables the user lists or exports in prose: the weakest source of the NCCL settings.

    Input (tests/data/captures/417)::

        NCCL_MAX_NCHANNELS=1
        NCCL_ALGO=Ring

    or a sentence naming tries that did not help (tests/data/captures/916)::

        Starting the Python training script using `NCCL_IB_DISABLE=1 python tune.py` does not help.
    """
    settings: list[tuple[str, str]] = []
    tried: list[tuple[str, str]] = []
    for line in text.splitlines():
        if found := tried_nccl(line):
            tried += found
        elif (s := stated_nccl(line)) is not None:
            settings.append(s)
    if not settings and not tried:
        raise ParseError("no NCCL variable set in the user's words")
    return StatedNccl(settings=tuple(dict.fromkeys(settings)), tried=tuple(dict.fromkeys(tried)))


# --- NCCL configuration ----------------------------------------------------------------------


# The path names NCCL's ncclGetLevel matches for NCCL_P2P_LEVEL (topoPathTypeStr up to SYS, src/graph/topo.h).
_P2P_LEVELS = frozenset(("LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS"))

# The algorithms and protocols NCCL_ALGO and NCCL_PROTO name (ncclAlgoStr, ncclProtoStr, src/include/device.h), and
# the algorithms NCCL runs only on a job that spans nodes: NVLSTree (NVLS inside a node, a tree between nodes) and PAT
# (one GPU a node), whose tuning NCCL zeroes on one node (src/graph/tuning.cc).
NCCL_ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
NCCL_PROTOCOLS = ("LL", "LL128", "Simple")
NCCL_MULTI_NODE_ALGORITHMS = frozenset(("NVLSTree", "PAT"))


@dataclass(frozen=True)
class NcclSetting:
    name: str
    value: str
    source: str  # "pid 4101 (vLLM api-server) environment", "/etc/nccl.conf", "NCCL log", "collect_env shell"
    engine: str = ""  # the engine whose process carries it ("vllm", "sglang", "")
    strength: int = 0  # 2: the engine's own environment/config file, 1: NCCL log, 0: collect_env shell
    test_run: bool = False  # set on a pasted nccl-tests command line: the measurement's own choice

    @property
    def on(self) -> bool:
        """The value switches its variable on (`1`, `true`, `yes`, `y`, `on`), as NCCL's boolean variables read."""
        return self.value.strip().lower() in ("1", "true", "yes", "y", "on")

    @property
    def p2p_off(self) -> bool:
        """The setting turns NCCL's P2P transport off: NCCL_P2P_DISABLE on, or NCCL_P2P_LEVEL LOC (0)."""
        return (self.name == "NCCL_P2P_DISABLE" and self.on) or (
            self.name == "NCCL_P2P_LEVEL" and self.value.upper() in ("LOC", "0"))

    @property
    def p2p_nvlink_only(self) -> bool:
        """The setting keeps NCCL's P2P transport to NVLink-connected GPUs: NCCL_P2P_LEVEL NVL. The legacy number 1 is
        PIX, not NVL (ncclGetLevel's levelsOldToNew: LOC, PIX, PXB, PHB, SYS, SYS; src/graph/paths.cc)."""
        return self.name == "NCCL_P2P_LEVEL" and self.value.strip().upper() == "NVL"

    @property
    def p2p_level_unread(self) -> bool:
        """NCCL_P2P_LEVEL set to a value NCCL's reader does not know (`PCI`): ncclGetLevel (src/graph/paths.cc)
        matches only the path names (`_P2P_LEVELS`) and the legacy numbers, and otherwise keeps its default level
        without its `set by environment` line, so what the setting does is not shown by the setting."""
        value = self.value.strip().upper()
        return self.name == "NCCL_P2P_LEVEL" and bool(value) and value not in _P2P_LEVELS and not value[0].isdigit()

    @property
    def unnamable(self) -> tuple[str, ...]:
        """For NCCL_SOCKET_IFNAME and NCCL_IB_HCA, the items of the value that no device can be named, in order; ()
        for other variables. NCCL reads a comma-separated list of name prefixes, after a leading `^` (leave out) and
        `=` (exact match); NCCL_IB_HCA's items may end in `:port`. A Linux interface name is at most 15 characters
        and holds no `/` and no whitespace (the kernel's dev_valid_name), and an RDMA device name holds no `/`
        either, so an item with a `/` or a space (`ens121f0/` from `-e "NCCL_SOCKET_IFNAME=ens121f0"/`, corpus 2118)
        or, for an interface, past 15 characters matches nothing."""
        if self.name not in ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA"):
            return ()
        items = self.value.strip().lstrip("^=").split(",")
        if self.name == "NCCL_IB_HCA":
            items = [t.rsplit(":", 1)[0] if re.fullmatch(r".*:\d+", t) else t for t in items]
        longest = 15 if self.name == "NCCL_SOCKET_IFNAME" else 64  # IFNAMSIZ - 1; IB_DEVICE_NAME_MAX
        return tuple(t for t in (i.lstrip("=") for i in items)
                     if t and ("/" in t or re.search(r"\s", t) or len(t) > longest))

    @property
    def left_out(self) -> tuple[str, ...] | None:
        """For NCCL_ALGO / NCCL_PROTO, the algorithms (protocols) the value keeps NCCL from choosing, in NCCL's order;
        () where it names every one, so it forces nothing. NCCL's parseList reads a comma-separated list, case-blind,
        whole names only (empty items name nothing), and a leading `^` turns it into a list of those to leave out.
        None for other variables, an empty value, or a name NCCL does not know (what NCCL does then is not shown)."""
        names = {"NCCL_ALGO": NCCL_ALGORITHMS, "NCCL_PROTO": NCCL_PROTOCOLS}.get(self.name)
        value = self.value.strip()
        if names is None or not value:
            return None
        exclude = value.startswith("^")
        items = [t.strip().lower() for t in value.lstrip("^").split(",") if t.strip()]
        known = {n.lower() for n in names}
        if not items or any(t not in known for t in items):
            return None
        return tuple(n for n in names if (n.lower() in items) == exclude)


@dataclass(frozen=True)
class NcclConfig:
    settings: tuple[NcclSetting, ...]
    sources: tuple[str, ...] = ()  # what was read (for the message)
    # Whether the engine's own settings were seen: its environment or an NCCL config file was read,
    # or an NCCL INFO log (which prints "NCCL_X set by environment to Y" for every variable set).
    engine_seen: bool = False
    conf_read: bool = False  # /etc/nccl.conf (present or absent) was readable in this source
    engine_running: bool | None = None  # None: the process list is not in the source
    # Engine processes run but none of their environments was readable (another user's: run as root).
    env_unreadable: bool = False
    # Variables a test's launcher passes from its shell (`mpirun -x NCCL_ALGO`) whose value no source shows.
    unshown: tuple[str, ...] = ()
    # Variables the user names as tries that did not help (StatedNccl.tried): kept apart from the settings, since
    # they are experiments on the failure, not the run's standing setup.
    tried: tuple[NcclSetting, ...] = ()

    def value(self, name: str) -> str | None:
        return next((s.value for s in self.effective if s.name == name), None)

    @property
    def effective(self) -> tuple[NcclSetting, ...]:
        """Each variable once, as its strongest source sets it (engine over NCCL log over shell), strongest first."""
        strongest: dict[str, NcclSetting] = {}
        for s in sorted(self.settings, key=lambda x: -x.strength):
            strongest.setdefault(s.name, s)
        return tuple(strongest.values())

    @property
    def p2p_off(self) -> bool:
        """Some source's setting turns NCCL's P2P transport off."""
        return any(s.p2p_off for s in self.settings)


def parse_nccl_conf(text: str) -> dict[str, str]:
    """/etc/nccl.conf: `NCCL_X=value` lines, `#` comments (NCCL env doc)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.match(r"^(NCCL_[A-Z0-9_]+)\s*=\s*(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip().strip("'\"")
    return out


@provider("nccl_config", NcclConfig, title="engine environment, nccl.conf, NCCL log, collect_env")
def nccl_config(ctx: FactContext) -> NcclConfig:
    """NCCL_* settings of the serving engine: its environment, nccl.conf files, NCCL log lines, collect_env."""
    host = ctx.host
    procs = ctx.optional("serving_processes", ServingProcesses)
    settings: list[NcclSetting] = []
    sources: list[str] = []
    homes: set[tuple[int | None, str]] = set()
    conf_files: set[tuple[int | None, str]] = set()
    engine_seen = False
    if procs is not None:
        for proc in procs.processes:
            env = proc.environ or {}
            if proc.environ is not None:
                engine_seen = True
                sources.append(f"{proc.label} environment")
            for name, value in env.items():
                if name.startswith("NCCL_"):
                    settings.append(NcclSetting(name, value, f"{proc.label} environment", proc.engine, 2))
            if "HOME" in env:
                homes.add((proc.pid, env["HOME"]))
            if env.get("NCCL_CONF_FILE"):
                conf_files.add((proc.pid, env["NCCL_CONF_FILE"]))
    if procs is not None and not procs.found and procs.current is not None and procs.current.environ:
        sources.append("the audit's own environment (no engine running)")
        for name, value in procs.current.environ.items():
            if name.startswith("NCCL_"):
                settings.append(NcclSetting(name, value, "the audit's own environment (no engine running)", "", 0))
    paths: list[tuple[int | None, str]] = [(None, "/etc/nccl.conf")]
    paths += sorted((pid, posixpath.join(home, ".nccl.conf")) for pid, home in homes)
    paths += sorted(conf_files)
    if not homes:
        paths.append((None, "/root/.nccl.conf"))
    read_any = False
    for pid, path in paths:
        seen = process_path(host, pid, path) if pid else path
        if seen is None:
            continue
        try:
            text = read_optional(host, seen)
            read_any = True
        except (PermissionError, NotCaptured):
            continue
        if text is None:
            continue
        engine_seen = True
        sources.append(path)
        for name, value in parse_nccl_conf(text).items():
            settings.append(NcclSetting(name, value, path, "", 2))
    log = ctx.optional("serving_log", ServingLog)
    if log is not None and (log.nccl_version or log.channels or log.nccl_env):
        # A pasted log is an excerpt: its `set by environment` lines show what was set, but their absence
        # proves nothing (the lines shown may end before NCCL echoes its environment).
        engine_seen = engine_seen or bool(log.nccl_env)
        sources.append("NCCL log")
        for name, value in log.nccl_env.items():
            settings.append(NcclSetting(name, value, "NCCL log (`set by environment`, `set to`)", log.engine, 1))
    report = ctx.optional("collect_env", CollectEnv)
    if report is not None:
        sources.append("collect_env report")
        for name, value in report.env.items():
            if name.startswith("NCCL_") and name != "NCCL_VERSION":
                settings.append(NcclSetting(name, value, "collect_env report (the shell it ran in)", "", 0))
    containers = ctx.optional("docker_containers", DockerContainers)
    for ctr in containers.gpu_or_serving + containers.gpu_env_only if containers is not None else ():
        # The container's environment as docker inspect or a pasted spec (docker run -e, compose, pod) shows
        # it; an excerpt may leave the rest out, so only a whole one shows what was not set. A GPU test that exits
        # (`docker run --gpus all nvidia/cuda nvidia-smi`) runs no engine: its environment is not the engine's.
        if ctr.diagnostic_only:
            continue
        where = f"container {ctr.label} environment ({ctr.origin or 'docker inspect'})"
        sources.append(where)
        # An inspect excerpt's Env list shown to its end is the whole environment (the image's ENV is in it too).
        engine_seen = engine_seen or not ctr.excerpt or (ctr.env_whole and ctr.origin == ORIGIN_INSPECT_EXCERPT)
        engine = ctr.engine
        for name, value in ctr.env:
            # NCCL_VERSION: the CUDA image's record of the NCCL it ships, which NCCL does not read.
            if name.startswith("NCCL_") and name != "NCCL_VERSION":
                settings.append(NcclSetting(name, value, where, engine, 2))
    mpi_exported = False
    served = containers.gpu_or_serving if containers is not None else ()
    for ctr in containers.containers if containers is not None else ():
        # A container whose command starts MPI ranks (`mpirun -np 16 -H IP1:8,IP2:8 -x NCCL_IB_HCA=mlx5_0 ...`): the
        # launcher exports each `-x NAME=VALUE` to every rank it starts (corpus 2389).
        if (ctr.mpi_ranks_per_host or 0) < 1 or ctr in served:
            continue
        where = f"container {ctr.label}'s MPI launcher (`-x`)"
        exported = [a.partition("=") for i, a in enumerate(ctr.argv[1:], 1) if ctr.argv[i - 1] == "-x" and "=" in a]
        settings += [NcclSetting(name, value, where, ctr.engine, 2) for name, _, value in exported
                     if name.startswith("NCCL_")]
        if exported:
            sources.append(where)
            mpi_exported = True
    tests = ctx.optional("nccl_test_runs", NcclTestRuns)
    for program, assigned in tests.runs if tests is not None else ():
        # A test run's own variables: what the run shows was set for it, not the serving engine's environment.
        where = f"the pasted `{program}` command line (a test run)"
        sources.append(where)
        settings += [NcclSetting(name, value, where, "", 2, test_run=True) for name, value in assigned]
    stated = ctx.optional("stated_nccl_env", StatedNccl)
    for name, value in stated.settings if stated is not None else ():
        # What the user says was set: the weakest source, never the engine's whole environment.
        settings.append(NcclSetting(name, value, "the user's own words", "", 0))
    if stated is not None:
        sources.append("the user's own words")
    from stackaudit.facts.engine_command import EngineCommands

    commands = ctx.optional("engine_commands", EngineCommands)
    for cmd in commands.commands if commands is not None else ():
        # Only what is set on the line itself: the rest of the engine's environment is not shown.
        where = f"the pasted `{cmd.argv[0]}` command line"
        sources.append(where)
        for name, value in cmd.env:
            if name.startswith("NCCL_"):
                settings.append(NcclSetting(name, value, where, cmd.engine, 2))
    if procs is None and not read_any and log is None and report is None and not (
            containers is not None and (containers.gpu_or_serving or containers.gpu_env_only)) and not (commands is not None and commands.commands) \
            and not (tests is not None and tests.runs) and stated is None and not mpi_exported:
        raise NotCaptured("NCCL settings (engine environment, /etc/nccl.conf)")
    env_unreadable = procs is not None and procs.found and all(p.environ is None for p in procs.processes)
    named = {s.name for s in settings}
    unshown = tuple(n for n in (tests.passed if tests is not None else ()) if n not in named)
    tried = tuple(NcclSetting(name, value, "the user's own words: a try that did not help", "", 0)
                  for name, value in (stated.tried if stated is not None else ()))
    return NcclConfig(tuple(settings), tuple(dict.fromkeys(sources)), engine_seen, read_any,
                      None if procs is None else procs.found, env_unreadable, unshown, tried)


@dataclass(frozen=True)
class StatedGraphMode(Sourced):
    """vLLM's CUDA graph mode stated on a line of its own (STATED_GRAPH_MODE): the mode and the line."""

    mode: str
    line: str


fact("stated_graph_mode", StatedGraphMode, first_of, hint="paste the engine's start-up log or its command line")


@parser(EVIDENCE_LINES, feeds="stated_graph_mode", kind=StatedGraphMode, rank=10)
def stated_graph_mode(text: str) -> StatedGraphMode:
    """vLLM's graph mode on a line of its own; two different modes state no one run's.

    Input (tests/data/captures/2479)::

        cudagraph_mode=FULL_AND_PIECEWISE
    """
    found = {m.group(1): line.strip() for line in text.splitlines() if (m := STATED_GRAPH_MODE.match(line))}
    if len(found) != 1:
        raise ParseError("no one `cudagraph_mode=` line in the lines shown")
    mode, line = next(iter(found.items()))
    return StatedGraphMode(mode, line)
