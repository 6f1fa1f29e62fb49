"""A check's subject, and when the source shows it absent: the one rule for `not-applicable` from what a paste shows.

A check declares the thing it is about (`check(..., applies_to=...)`): a GPU of any vendor, an NVIDIA GPU, NVLink, an NVSwitch fabric,
MIG. Where the check cannot judge (unknown), the engine asks `shown_absent` (engine/evaluate.not_shown_subject).
The subject is absent only from what the source positively shows, never from what an excerpt leaves out:

- a whole source shows no NVIDIA GPU (`gpus.none_on_bus`: a whole PCI listing without one), or, for a check about
  a GPU of any vendor, no GPU at all (`gpus.no_accelerator`: an EC2 instance type of a family without
  accelerators in the user's words), and no source shows another vendor's GPU or an NVIDIA driver; or
- every GPU the sources show is another vendor's (an AMD Instinct in rccl-tests' header or a ROCm collect_env,
  /dev/kfd handed to an LXC container, a kernel log's amdgpu lines with no NVIDIA or nouveau line beside them, an
  issue form's GPU answered `AMD`, ollama's ROCm discovery, llama.cpp's HIP device list, ggml's Metal backend, torch's
  MPS device or a macOS host, each where the same lines show no NVIDIA GPU: facts/gpus.other_gpu_line; rocm-smi,
  rocminfo, amd-smi, or a ROCm variable set for an engine: facts/gpus.AMD_TOOL_LINES), and no
  source shows an NVIDIA GPU or an NVIDIA driver; or
- the sources name the model of every NVIDIA GPU they count, and no such model has the feature (gputable: the
  NVLink links, the NVLink kind or product family for NVSwitch, the MIG list of NVIDIA's MIG user guide).
  Where the count is a lower bound (an excerpt, a chosen DCGM group, the user's words) or no source states one (a
  list's `GPU: <model>` line), only a host-wide subject is concluded absent: an NVSwitch fabric is an HGX/DGX baseboard's, and a host with such a board holds only the
  board's SXM modules, so one PCIe, NVL or bridged card that CUDA, DCGM or the user names rules it out for the host.
  The same holds where other GPUs are counted without their model (a whole `topo -m` beside a test header that names
  three of its six GPUs).
  For an NVSwitch fabric, a whole `nvidia-smi topo -m` decides where no GPU named may sit on one
  (`no_switch_shown`): PCIe paths only, NVLink only between disjoint pairs, or no pair bonding more than NV4 is a
  host of PCIe cards, bridged cards or a direct mesh (TopoMatrix.no_switch_fabric); so is a p2pBandwidthLatencyTest
  that ran and moved no more than PCIe carries between any pair with P2P on (P2pBandwidth.no_switch_fabric), and an
  engine that turned its custom all-reduce off on more than two PCIe-only GPUs (ServingLog.no_switch_fabric).
  A Kubernetes node whose own count (GFD's label, or its GPU resources counting one device) is one GPU has no
  NVSwitch fabric, unless a model named may sit on one (`node_alone`).
  A PCIe link is each GPU's own too: a Jetson module's integrated GPU has none (the `pcie-link` subject, judged from
  the models shown only, as another vendor's GPU has a link of its own).
  NVLink and MIG are each GPU's own: a card that lacks them says nothing of GPUs the excerpt leaves out. Both are
  judged over the GPUs shown (`Subject.over_shown`): the models of the GPUs an excerpt names decide for those GPUs,
  and the not-applicable states that coverage (`K of N GPUs shown`); a GPU with no NVLink has no link to any GPU
  (corpus 962: a CUDA device list of Kepler and Maxwell cards).

A check about one CPU vendor's hardware (`amd-cpu`: amd-pstate) is not applicable where lscpu names another vendor
(CPU_SUBJECTS); an lscpu excerpt without the vendor and model lines leaves it open.

A check about the serving engine's PyTorch or its CUDA-graph flags (ENGINE_SUBJECTS) is not applicable where every
engine the pasted sources show is one that runs neither (GGML_ENGINE_NAMES: llama.cpp's llama-server, ollama, a ggml
device list), unless that engine's log states the setting itself (GGML_STATES: ggml's USE_GRAPHS for CUDA graphs).
A check about the engine's PyTorch kernels for the NVIDIA GPUs (ENGINE_GPU_SUBJECTS) is not applicable, too, where
the sources show no NVIDIA GPU, as a check about an NVIDIA GPU is.
An AMD GPU shown keeps it open (torch's ROCm builds).
A check about vLLM's or SGLang's custom all-reduce is not applicable where every engine shown is one of
those or TensorRT-LLM, which runs its own (ENGINES_WITHOUT). That check judges the engine's gate from the host's
GPUs, so with no such engine shown its verdict is moot: not applicable over any verdict but an issue. The
sources: a pasted engine command, ollama's discovery lines, llama.cpp's `ggml_cuda_init` device list, a server log,
a container (its engine, else its image:
GGML_IMAGES), and, the weakest, the user's own sentences (importers/prose_engine.py: lines no other reader takes,
never a command or a log; facts/engine_command.STATED_ENGINE_WORDS). Any stronger source that shows vLLM, SGLang,
TensorRT-LLM or PyTorch keeps the subject open. A sentence that names one keeps it open only where no stronger source
names an engine: a sentence beside a pasted command, log, device list or container names a run the paste does not
show (corpus 989: a llama-server command, and `on VLLM` for the run it is compared with).
The bound: only pasted sources, and only engines they name. A live process list judges the engines itself. A pasted
server log, container spec or Python report that names no engine leaves the subject open. An engine the paste does not
show is not judged: a llama.cpp command says nothing of a vLLM elsewhere on the host, so the message names the engine
shown.

A model may be named in words: an issue form's GPU answer (`### Hardware: GPU`, importers/prose_machine.py), a
compute capability alone (`compute=8.6` in ollama's line cut before its name: gputable.capability_name), or a Jetson's
platform lines (an L4T release, Tegra's NvRmMem lines, the container toolkit's `Auto-detected mode as 'csv'`:
facts/gpus.jetson_platform).
A GPU listed without its model, a name the GPU table does not know, or a model of which one variant has the
feature (`H100`: SXM on NVSwitch, PCIe without) leaves the subject open.

A check about a GPU whose collectives run over NCCL is not applicable where every engine the pasted sources show runs
no NCCL (ENGINES_WITHOUT_NCCL: ollama, llama.cpp) and no command shown splits a model's tensors over GPUs
(SPLIT_OVER_GPUS): no communicator is built (no_nccl_engine).

A check of what only a Linux host has (LINUX_ONLY: persistence mode, MIG, a container's GPU access) is not applicable
where the sources show a Windows host (facts/platform.Virtualization.os: a Windows driver model, llama.cpp built for
Windows, a Windows program path, `OS: Windows 11`), and, for a container's check, no container. Persistence mode is
not applicable under WSL 2 either (WSL_TOO): its Linux VM runs no NVIDIA kernel module, only the Windows driver's.

A check of the CUDA runtime an engine loads (CUDA_RUNTIME_CHECKS) is not applicable where every engine shown is a ggml
one whose log's device list offers its GPUs through another backend only (`- Vulkan0 : NVIDIA GeForce RTX 5060`) and
names nothing of CUDA's (no_cuda_runtime): that build loads no CUDA runtime.

The same engines shown decide one verdict that is not an applicability: where every one serves from one process
(ONE_PROCESS_ENGINES) and no command splits its model over GPUs, CTR-SHM-SIZE is not an issue (one_process_engine).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from stackaudit.facts._parse import argv_value
from stackaudit.facts.gpus import USER_WORDS_TITLE, GpuInventory
from stackaudit.facts.k8s_node import GFD_TITLE, RESOURCE_TITLE
from stackaudit.facts.peer_access import P2pBandwidth
from stackaudit.facts.platform import tegra_kernel
from stackaudit.facts.serving_logs import ServingLog
from stackaudit.facts.system import CpuInfo
from stackaudit.facts.topology import TopoMatrix
from stackaudit.gputable import (
    has_mig,
    jetson_gpu,
    nvgpu_jetson,
    nvlink_links_of,
    on_nvswitch,
    without_ecc,
    without_mig,
)


@dataclass(frozen=True)
class Subject:
    """What a check is about, and how a GPU model says it lacks it."""

    words: str  # "NVLink": `no NVLink` in the not-applicable message
    lacks: Callable[[str], bool]  # True where the model certainly lacks it
    absent: str = ""  # the message where every model shown lacks it; {models}: the models in words
    host_wide: bool = False  # one GPU shown that lacks it rules it out for the host (see the module docstring)
    # Each GPU's own, judged over the GPUs shown: a listing that may leave GPUs out (an excerpt, a CUDA list that
    # CUDA_VISIBLE_DEVICES narrows) decides for the GPUs it names, with that coverage (`over_subjects`).
    over_shown: bool = False
    # Why one model lacks it, in words (`A100 PCIe ...`); where set, `{models}` in `absent` is these reasons.
    why: Callable[[str], str] | None = None
    # Judged from the models shown only: a source without an NVIDIA GPU, or with another vendor's, leaves it open
    # (another vendor's GPU has a PCIe link too).
    models_only: bool = False


NO_NVLINK_WHY = (": GPU-to-GPU traffic goes over PCIe, so vLLM/SGLang custom all-reduce runs at most at TP=2 and "
                 "all-reduce is PCIe-latency bound (a property of the build, not a fix)")

SUBJECTS: dict[str, Subject] = {
    "gpu": Subject("GPU", lambda model: False),
    # A GPU whose collectives run over NCCL: NVIDIA's, and AMD's, whose RCCL reads the same NCCL_* variables
    # (https://rocm.docs.amd.com/projects/rccl/en/latest/api-reference/env-variables.html). Another vendor's
    # accelerators run their own collective library (Huawei's Ascend NPUs: HCCL), which no NCCL_* variable steers.
    "nccl-gpu": Subject("GPU whose collectives run over NCCL", lambda model: False),
    "nvidia-gpu": Subject("NVIDIA GPU", lambda model: False),
    "nvlink": Subject("NVLink", lambda model: nvlink_links_of(model) == 0,
                      "no NVLink on these GPUs ({models})" + NO_NVLINK_WHY, over_shown=True),
    "nvswitch": Subject("NVSwitch", lambda model: on_nvswitch(model) is False,
                        "no NVSwitch ({models}): PCIe or NVLink-bridge GPUs need no Fabric Manager", host_wide=True),
    # MEM-MIG judges a whole GPU's MIG mode: a GPU CUDA names lacks MIG or not whatever GPUs a listing leaves out.
    "mig": Subject("MIG", lambda model: has_mig(model) is False, "no MIG on these GPUs: {models}", over_shown=True,
                   why=without_mig),
    # ECC, a GPU's own memory protection: a GeForce card before Ada Lovelace has none (gputable.without_ecc: its GDDR
    # memory carries no ECC, and nvidia-smi prints its ECC mode N/A), so a listing that names the model settles it
    # where no ECC field is shown (MEM-ECC-MODE).
    "ecc": Subject("ECC", lambda model: bool(without_ecc(model)), "ECC is not supported on these GPUs: {models}",
                   over_shown=True, why=without_ecc),
    # Persistence mode, a setting of the discrete GPUs' driver: a Jetson before Thor runs its integrated GPU on the
    # nvgpu driver, which has none (gputable.nvgpu_jetson; corpus 2521, 2519).
    "persistence": Subject("persistence mode", nvgpu_jetson, "no persistence mode: {models} is a Jetson module's "
                           "integrated GPU, which the nvgpu driver runs without one", over_shown=True),
    # A GPU's PCIe link: a Jetson module's integrated GPU sits on the SoC with no PCIe link (gputable.jetson_gpu;
    # corpus 2158, `NVIDIA Tegra X2` in llama.cpp's device list).
    "pcie-link": Subject("PCIe link", jetson_gpu, "no PCIe link: {models} is a Jetson module's integrated GPU, on "
                         "the SoC beside the CPU", over_shown=True, models_only=True),
}


# Subjects that are a serving engine's: what the check reads of it, in words for `no {words}`.
ENGINE_SUBJECTS: dict[str, str] = {
    "torch-engine": "PyTorch (its kernels are ggml's own CUDA kernels)",
    "graph-engine": "vLLM, SGLang or TensorRT-LLM CUDA-graph setting to read",
    "allreduce-engine": "vLLM or SGLang custom all-reduce (it splits the model over its GPUs with its own code)",
    # FlashInfer is a PyTorch extension that vLLM, SGLang and TGI load as an attention and sampling backend; a ggml
    # engine runs its own attention kernels (ggml's flash-attention, llama.cpp's `-fa`), and loads no Python.
    "flashinfer-engine": "FlashInfer (its attention runs ggml's own kernels, with no Python package to load)",
}
# What a subject's words add where a ggml engine is among those shown (GGML_ENGINE_NAMES), which no other engine
# without the subject shares (FastChat's transformers worker runs no CUDA graphs at all).
GGML_SUBJECT_NOTES = {"graph-engine": " (it has its own CUDA-graph use)"}
# Engine subjects about the engine's work on an NVIDIA GPU, by the GPU subject they need: where the sources show no
# NVIDIA GPU (shown_absent: only another vendor's GPUs, or none on a whole bus), the check is not applicable whatever
# engine runs. RT-TORCH-ARCH matches torch's CUDA kernels to the NVIDIA GPUs' compute capability. An AMD GPU keeps it
# open: torch's ROCm builds carry their own gfx targets, which the blind readings judge as this check's (corpus 1255,
# 1550: unknown where the targets are not printed).
ENGINE_GPU_SUBJECTS: dict[str, str] = {"torch-engine": "nvidia-gpu"}


def engine_gpu_absent(subject: str, gpus: GpuInventory | None, nvidia_driver_shown: bool) -> str:
    """Why the sources show no GPU for an engine subject of ENGINE_GPU_SUBJECTS, in words; "" where they do not show
    that, or where a GPU shown is AMD's (_RCCL_VENDOR)."""
    gpu_subject = ENGINE_GPU_SUBJECTS.get(subject, "")
    if not gpu_subject or gpus is None or any(_RCCL_VENDOR.search(o) for o in gpus.others):
        return ""
    return shown_absent(gpu_subject, gpus, nvidia_driver_shown)
# The engines, as facts/engine_command and the ollama discovery lines name them, that run neither PyTorch nor the
# CUDA-graph flags of vLLM, SGLang or TensorRT-LLM, nor vLLM's or SGLang's custom all-reduce. "ggml": llama.cpp's
# `ggml_cuda_init` device list, which llama.cpp and the programs built on its ggml library print (ollama too), or ggml's
# own CUDA error lines (facts/symptoms.GGML_SYMPTOMS).
GGML_ENGINE_NAMES = {"llamacpp": "llama.cpp (llama-server, llama-cli or a program built on it)", "ollama": "ollama",
                     "ggml": "a ggml CUDA build (llama.cpp's `ggml_cuda_init` device list or ggml's own CUDA "
                             "error lines)"}
# Engine subjects a ggml engine's own log can state after all, by the facts/serving_logs.ServingLog field that holds
# the state and the words for it: llama.cpp's CUDA build prints whether it runs its own CUDA graphs
# (`USE_GRAPHS = 1`, ollama's `CUDA.0.USE_GRAPHS=1`; GGML_USE_GRAPHS). Where the log shows it, the check judges it.
GGML_STATES: dict[str, tuple[str, str]] = {
    "graph-engine": ("ggml_use_graphs", "its log shows the build's own CUDA-graph setting (USE_GRAPHS)"),
}
# Engine subjects whose check judges the engine's own gate from the host (vLLM's and SGLang's custom all-reduce: the
# GPUs' NVLink and P2P). Where every engine shown lacks the subject, that verdict is of an engine that does not run:
# not applicable over any verdict but an issue (the worse line wins).
ENGINE_VERDICT_MOOT = frozenset({"allreduce-engine"})
# Other engines that lack an engine subject, per subject. TensorRT-LLM runs its own custom all-reduce, built into
# its engine or set by its LLM API, not vLLM's or SGLang's: RT-TRTLLM-ALLREDUCE judges it.
# distributed-llama (b4rtaz/distributed-llama: its `dllama` program, serving_logs.ENGINE_CONSOLES) runs a model on its
# own CPU and Vulkan backends (src/nn: nn-cpu, nn-vulkan), with no CUDA, PyTorch or NCCL, and joins its nodes over its
# own TCP sockets (`⭕ Socket[0]: connected`): no engine subject, no CUDA runtime and no NCCL communicator of its own.
DLLAMA = "distributed-llama, which runs on its own CPU and Vulkan backends and joins its nodes over its own TCP sockets"
ENGINES_WITHOUT: dict[str, dict[str, str]] = {
    # TGI's sharded layers all-reduce through torch.distributed's NCCL process group (server/text_generation_server/
    # layers/tensor_parallel.py, https://github.com/huggingface/text-generation-inference): no custom all-reduce.
    # FastChat's model_worker runs transformers' generate in PyTorch's eager mode, its layers split by accelerate.
    "graph-engine": {"fastchat": "FastChat's model_worker (Hugging Face transformers, which runs no CUDA graphs)",
                     "dllama": DLLAMA},
    # ExLlamaV2's tensor parallelism reduces through its own code (host-memory buffers, or NCCL in ExLlamaV3), never
    # vLLM's or SGLang's custom all-reduce (corpus 2905).
    "allreduce-engine": {"fastchat": "FastChat's model_worker (its layer split runs no all-reduce)",
                         "dllama": DLLAMA,
                         "exllama": "ExLlama (ExLlamaV2 or ExLlamaV3, a PyTorch extension)",
                         "trtllm": "TensorRT-LLM (its own custom all-reduce is RT-TRTLLM-ALLREDUCE's)",
                         "tgi": "TGI (text-generation-inference, whose shards all-reduce through torch.distributed's "
                                "NCCL)"},
}
# An engine subject's feature by the day its engine gained it: a run a pasted log dates before that day (its timestamps
# with a year: facts/serving_logs.LogDate) ran a release without it. A date bounds the release from above only: a later
# day says nothing. vLLM's custom all-reduce (custom_all_reduce.py) came with vllm-project/vllm#2192, still under review
# on 2023-12-21 ("Should be ready to merge").
FEATURE_SINCE: dict[str, dict[str, tuple[str, str, str]]] = {
    "allreduce-engine": {"vllm": ("2023-12-21", "vLLM's custom all-reduce",
                                  "https://github.com/vllm-project/vllm/pull/2192")},
}


def dated_before(subject: str, engine: str, day: str) -> str:
    """Why a run of `engine` dated `day` (YYYY-MM-DD) had no release with the subject's feature (FEATURE_SINCE), in
    words; "" where the table has no such day or the run is not before it."""
    since = FEATURE_SINCE.get(subject, {}).get(engine)
    if since is None or not day or day >= since[0]:
        return ""
    return (f"the log dates the run {day}, before {since[0]}, when the change that brought {since[1]} was not yet "
            f"merged ({since[2]}): no release the run could use had it")


# The engines that serve from one process, with why: no worker process or NCCL rank of theirs in another process
# shares /dev/shm with them (CTR-SHM-SIZE). llama.cpp's llama-server drives every GPU it uses from its own process; its
# RPC backend reaches other hosts over TCP (ggml-org/llama.cpp tools/rpc/README.md). ollama's server starts one
# runner per model, which loads llama.cpp in that runner's process and answers the server over HTTP on localhost
# (ollama llm/server.go), with no NCCL.
ONE_PROCESS_ENGINES: dict[str, str] = {
    "llamacpp": "llama.cpp's llama-server drives its GPUs from one process",
    "ollama": "ollama runs each model in one runner process, which its server reaches over HTTP",
    # A ggml device list of one device (`ggml_cuda_init: found 1 CUDA devices`) where no source names the program: every
    # program built on ggml (llama-server, ollama's runner, a binding such as Tabby's or llama-cpp-python) loads the
    # library into its own process, which drives the GPUs it lists (corpus 2370).
    "ggml": "the ggml program whose device list shows one GPU (llama.cpp's library) serves from its own process",
    # LMDeploy's TurboMind backend (`lmdeploy serve api_server M --backend turbomind`, TURBOMIND): a C++ engine the
    # server loads through its Python binding and drives from its own process, one thread per GPU (lmdeploy/turbomind/
    # turbomind.py); its PyTorch backend starts worker processes for a TP above 1, and may pick itself where no backend
    # is named (corpus 2868).
    "turbomind": "LMDeploy's TurboMind backend runs the model inside the server's own process",
    # FastChat's model_worker (facts/engine_command.FASTCHAT_WORKERS): transformers in the worker's one process.
    "fastchat": "FastChat's model_worker runs the model with transformers in its one process",
}
TURBOMIND = "turbomind"
# Flags that split a model's tensors over several GPUs (vLLM's and SGLang's TP, llama.cpp's row and tensor split
# modes): llama.cpp's tensor split reduces over NCCL where it is built with GGML_CUDA_NCCL, and NCCL's shared-memory
# transport between GPUs without P2P keeps its buffers in /dev/shm even within one process.
SPLIT_OVER_GPUS = re.compile(r"--tensor[-_]parallel|--tp\b|(?:--split-mode|-sm)(?:\s+|=)(?:row|tensor)\b")


def one_process_engine(shown: tuple[str, ...], commands: tuple[tuple[str, ...], ...] = ()) -> str:
    """Why every engine the pasted sources show serves from one process (ONE_PROCESS_ENGINES), in words; "" where
    none is shown, where one is another engine or unnamed (""), or where a command shown splits its model over GPUs
    (SPLIT_OVER_GPUS). `commands` holds the argv of each engine command the paste shows. LMDeploy is such an engine
    where a command of it is shown and every one names the TurboMind backend (TURBOMIND)."""
    lmdeploy = [argv for argv in commands if argv and posixpath.basename(argv[0]) == "lmdeploy"]
    if lmdeploy and all(argv_value(argv, ("--backend",)) == TURBOMIND for argv in lmdeploy):
        shown = tuple(TURBOMIND if e == "lmdeploy" else e for e in shown)
    if not shown or any(e not in ONE_PROCESS_ENGINES for e in shown):
        return ""
    if any(SPLIT_OVER_GPUS.search(" ".join(argv)) for argv in commands):
        return ""
    return "; ".join(dict.fromkeys(ONE_PROCESS_ENGINES[e] for e in shown))


# Engines that run no NCCL, by why, for a check about a GPU whose collectives run over NCCL ("nccl-gpu"): where every
# engine the pasted sources show is one of them and no command shown splits a model's tensors over GPUs
# (SPLIT_OVER_GPUS), no NCCL communicator is built, so no NCCL setting has a collective to shape. ollama splits a model
# by layers (ollama llm/server.go passes llama.cpp's layer split, with no row or tensor mode), and its runner copies the
# activations between GPUs inside its one process, with no NCCL. llama.cpp's layer split (its default) does the same.
ENGINES_WITHOUT_NCCL: dict[str, str] = {
    "ollama": "ollama, which splits a model over its GPUs by layers inside one runner process",
    "llamacpp": "llama.cpp, whose layer split copies activations between its GPUs inside one process",
    "fastchat": "FastChat's model_worker, whose layers accelerate places over its GPUs inside one process",
    "dllama": DLLAMA,
}


def no_nccl_engine(subject: str, shown: tuple[str, ...], commands: tuple[tuple[str, ...], ...] = ()) -> str:
    """Why no engine the pasted sources show runs NCCL (ENGINES_WITHOUT_NCCL), in words, for the "nccl-gpu" subject;
    "" for another subject, where none is shown, where one is another engine or unnamed (""), or where a command shown
    splits its model's tensors over GPUs (SPLIT_OVER_GPUS). `commands` holds the argv of each engine command shown.
    A ggml device list (facts/engines_shown.GGML, "ggml") beside one of them is that engine's own backend (ollama's
    runner printing `ggml_cuda_init`, corpus 2709)."""
    if any(e in ENGINES_WITHOUT_NCCL for e in shown):
        shown = tuple(e for e in shown if e != "ggml")
    if subject != "nccl-gpu" or not shown or any(e not in ENGINES_WITHOUT_NCCL for e in shown):
        return ""
    if any(SPLIT_OVER_GPUS.search(" ".join(argv)) for argv in commands):
        return ""
    names = " and ".join(dict.fromkeys(ENGINES_WITHOUT_NCCL[e] for e in shown))
    return (f"the only engine the paste shows is {names}: it builds no NCCL communicator, so no NCCL setting has a "
            "collective to shape; an engine the paste does not show is not judged")


# Their container images, as a pasted docker run, compose file or `docker inspect` names them (registry host and tag
# optional): ollama's own image (hub.docker.com/r/ollama/ollama, `:rocm` too) and llama.cpp's server images
# (ghcr.io/ggml-org/llama.cpp, formerly ghcr.io/ggerganov/llama.cpp).
GGML_IMAGES = {"ollama": re.compile(r"^(?:[\w.:-]+/)?ollama/ollama(?:[:@].*)?$"),
               "llamacpp": re.compile(r"^(?:[\w.:-]+/)?(?:ggml-org|ggerganov)/llama\.cpp(?:[:@].*)?$")}


def ggml_image_engine(image: str) -> str:
    """The engine of GGML_ENGINE_NAMES a container image is ("ollama", "llamacpp"); "" for any other image."""
    return next((engine for engine, pattern in GGML_IMAGES.items() if pattern.match(image.strip().lower())), "")


# The engines shown that run on PyTorch and lack an engine subject of their own (ENGINES_WITHOUT): a PyTorch program
# ("torch": the user's words `Pytorch version`, an issue form's list of versions naming torch alone) shown beside one of
# them is that engine's own framework, not another engine (ExLlamaV2's issue form, corpus 2905).
PYTORCH_ENGINES = frozenset({"exllama", "fastchat", "tgi", "trtllm"})


def engine_shown_other(subject: str, shown: tuple[str, ...]) -> str:
    """Why the pasted sources show no engine of an engine subject, in words; "" where they do not show that.
    `shown` holds each engine a pasted source shows, "" for a source that shows a serving stack without naming it; a
    PyTorch program ("torch") beside an engine of PYTORCH_ENGINES is that engine's framework."""
    lacking = {**GGML_ENGINE_NAMES, **ENGINES_WITHOUT.get(subject, {})}
    if any(e in PYTORCH_ENGINES for e in shown):
        shown = tuple(e for e in shown if e != "torch")
    if subject not in ENGINE_SUBJECTS or not shown or any(e not in lacking for e in shown):
        return ""
    names = " and ".join(dict.fromkeys(lacking[e] for e in shown))
    note = GGML_SUBJECT_NOTES.get(subject, "") if any(e in GGML_ENGINE_NAMES for e in shown) else ""
    return (f"the only engine the paste shows is {names}: no {ENGINE_SUBJECTS[subject]}{note}; an engine the paste does not "
            "show is not judged")


# Checks of what only a Linux host has. Where the sources show the engine's host runs Windows itself
# (facts/platform.Virtualization.os: not WSL 2, whose engines run in a Linux VM) and the check cannot judge, it is not
# applicable. Persistence mode is the Linux driver's: NVIDIA's driver persistence guide lists "All standard
# driver-supported Linux platforms" as its only OSes
# (https://docs.nvidia.com/deploy/driver-persistence/persistence-mode-legacy.html), and NVML's
# nvmlDeviceSetPersistenceMode is "For Linux only" (https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceCommands.html).
# A container given GPUs is Linux's (the NVIDIA Container Toolkit's device nodes and libraries). Docker Desktop on
# Windows gives GPUs to containers through its WSL 2 backend (https://docs.docker.com/desktop/features/gpu/), so
# CTR-GPU-ACCESS stays open where any container is shown. A CPU frequency governor is Linux's cpufreq subsystem
# (https://docs.kernel.org/admin-guide/pm/cpufreq.html); Windows sets processor speed through its power plans
# (powercfg), which the check does not read. A container on Windows runs in WSL 2's Linux VM, where the check's own VM
# rule applies, so it stays open where one is shown (corpus 1282). MIG is Linux's: NVIDIA's MIG user guide says "MIG is
# supported only on Linux operating system distributions supported by CUDA"
# (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/deployment-considerations.html). A container shown may run
# in WSL 2's Linux VM, which the guide does not settle, so the check stays open there.
LINUX_ONLY: dict[str, tuple[str, bool]] = {  # check: (why, only where no container is shown)
    "DRV-PERSISTENCE": ("persistence mode is a setting of NVIDIA's Linux driver, which a Windows host does not run",
                        False),
    "CTR-GPU-ACCESS": ("the engine runs as a Windows program or service and no container is shown: a container "
                       "given GPUs is a Linux one (the NVIDIA Container Toolkit's)", True),
    "KERN-CPUFREQ-GOVERNOR": ("a CPU frequency governor is Linux's cpufreq; Windows sets processor speed through its "
                              "power plan, and no container (a Linux VM under WSL 2) is shown", True),
    "MEM-MIG": ("MIG is supported only on Linux, and no container (a Linux VM under WSL 2) is shown", True),
}


# Checks of LINUX_ONLY that WSL 2 lacks too, by why: its Linux VM runs no NVIDIA kernel module, and reaches the GPU
# through the Windows host's driver (/dev/dxg and the libraries under /usr/lib/wsl: NVIDIA's CUDA on WSL user guide,
# https://docs.nvidia.com/cuda/wsl-user-guide/index.html), so no Linux driver setting of its own exists there. A WSL
# nvidia-smi that prints its Persistence-M column is read by the check itself (corpus 376, 768: On); this rule only
# answers where the check cannot judge (corpus 2328: Windows 11, WSL2-Docker, no nvidia-smi).
WSL_TOO: dict[str, str] = {
    "DRV-PERSISTENCE": "persistence mode is a setting of NVIDIA's Linux driver, and WSL 2's Linux VM runs none: its GPU "
                       "is the Windows host's driver's",
}


def linux_only_why(check_id: str, windows: str, container_shown: bool, wsl: str = "") -> str:
    """Why a check of LINUX_ONLY does not apply to a Windows host, or one of WSL_TOO to WSL 2, in words; "" where it
    does not say that. `windows`: why the sources show a Windows host ("" where they do not); `container_shown`: any
    container shown; `wsl`: why they show WSL 2 ("" where they do not)."""
    row = LINUX_ONLY.get(check_id)
    if row is not None and windows and not (row[1] and container_shown):
        return f"a Windows host ({windows}): {row[0]}"
    if wsl and check_id in WSL_TOO:
        return f"WSL 2 ({wsl}): {WSL_TOO[check_id]}"
    return ""


# Checks of the CUDA runtime an engine loads. A ggml engine whose `device_info:` list offers every GPU through another
# backend (Vulkan, Metal, SYCL, OpenCL: ServingLog.ggml_other_devices) and names no CUDA device, CUDA line or CUDA
# build feature is a build without ggml's CUDA backend: it loads no CUDA runtime, so no driver floor of one applies.
CUDA_RUNTIME_CHECKS = frozenset({"DRV-CUDA-COMPAT"})


# Engines built with no CUDA backend at all: they load no CUDA runtime whatever GPU they run on.
ENGINES_WITHOUT_CUDA: dict[str, str] = {"dllama": DLLAMA}


def no_cuda_runtime(check_id: str, log: ServingLog | None, engines: tuple[str, ...], report: bool) -> str:
    """Why a check of CUDA_RUNTIME_CHECKS does not apply, in words: every engine shown is a ggml one
    (GGML_ENGINE_NAMES), no Python environment is shown (`report`: torch loads its own CUDA runtime), and the log's
    device list names its GPUs through another backend only; "" otherwise."""
    if check_id in CUDA_RUNTIME_CHECKS and engines and not report and all(e in ENGINES_WITHOUT_CUDA for e in engines) \
            and not (log is not None and log.cuda_lines):
        return f"the only engine the paste shows is {' and '.join(ENGINES_WITHOUT_CUDA[e] for e in dict.fromkeys(engines))}" \
            ": it loads no CUDA runtime, so no driver floor of one applies"
    if check_id not in CUDA_RUNTIME_CHECKS or log is None or not log.ggml_other_devices or report or not engines:
        return ""
    if any(e not in GGML_ENGINE_NAMES for e in engines) or log.ggml_cuda_devices or log.ggml_cuda_line \
            or log.ggml_cuda_archs or log.cuda_lines:
        return ""
    return (f"llama.cpp's device list offers its GPUs as {', '.join(log.ggml_other_devices)} only, no CUDA device: "
            "this build runs without ggml's CUDA backend and loads no CUDA runtime, so no driver floor of one applies")


# Subjects that are one CPU vendor's hardware: the vendor's name in lscpu's `Vendor ID`, else in its `Model name`.
CPU_SUBJECTS: dict[str, tuple[str, str]] = {
    "amd-cpu": ("AMD CPU", "AMD"),
}
_CPU_VENDORS = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel", "ARM": "Arm", "HygonGenuine": "Hygon"}


def cpu_shown_other(subject: str, cpu: CpuInfo | None) -> str:
    """Why the source shows a CPU of another vendor than a CPU subject's (CPU_SUBJECTS), in words; "" where lscpu
    is not shown or names no vendor (neither `Vendor ID` nor a vendor in `Model name`)."""
    if cpu is None or subject not in CPU_SUBJECTS:
        return ""
    words, vendor = CPU_SUBJECTS[subject]
    shown = _CPU_VENDORS.get(cpu.vendor) or next((v for v in _CPU_VENDORS.values() if v in cpu.model_name.split()
                                                  or cpu.model_name.startswith(f"{v}(R)")), "")
    if not shown or shown == vendor:
        return ""
    return f"an {shown} CPU ({cpu.model_name or cpu.vendor}), not an {words}"


# The accelerators of `GpuInventory.others` whose collectives run over RCCL, which reads NCCL_* variables.
_RCCL_VENDOR = re.compile(r"\bAMD\b|Radeon|Instinct|ROCm|RCCL|/dev/kfd", re.I)


def shown_absent(subject: str, gpus: GpuInventory | None, nvidia_driver_shown: bool) -> str:
    """Why the source shows the check's subject absent, in words; "" where it does not show that."""
    if gpus is None:
        return ""
    if subject == "nccl-gpu":
        # Where no accelerator is shown, as for any GPU; where every one shown is another vendor's that NCCL does
        # not run on (not NVIDIA's, not AMD's), no NCCL variable reaches their collectives.
        others = gpus.others if not gpus.gpus and not any(n for _, n in gpus.counts) else ()
        if others and not nvidia_driver_shown and not any(_RCCL_VENDOR.search(o) for o in others):
            named = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
            return (f"no NVIDIA or AMD GPU in the source: the accelerators it shows are another vendor's ({named}), "
                    "whose collectives run over the vendor's own library (Ascend: HCCL), not NCCL, and no NVIDIA "
                    "driver is shown, so no NCCL variable applies")
        return shown_absent("gpu", gpus, nvidia_driver_shown)
    wanted = SUBJECTS[subject]
    if not gpus.gpus and not any(n for _, n in _vendor_counts(gpus)):
        if wanted.models_only:
            return ""
        whole = gpus.no_accelerator if subject == "gpu" else gpus.empty_in if gpus.none_on_bus else ()
        if whole and not gpus.others and not nvidia_driver_shown:
            return f"no {'GPU' if subject == 'gpu' else 'NVIDIA GPU'} in {whole[0]}" + (
                f", so no {wanted.words}" if subject not in ("gpu", "nvidia-gpu") else "")
        if not gpus.others or nvidia_driver_shown or subject == "gpu":
            return ""
        named = ", ".join(gpus.others[:3]) + (", …" if len(gpus.others) > 3 else "")
        return (f"no NVIDIA GPU in the source: the GPUs it shows are another vendor's ({named}), and no NVIDIA "
                f"driver is shown" + ("" if subject == "nvidia-gpu" else f", so no {wanted.words}"))
    if subject == "nvswitch" and (alone := node_alone(gpus)):
        return alone
    models = gpus.models
    if not wanted.absent or not models:
        return ""
    if not wanted.host_wide and not wanted.over_shown and (
            gpus.count is None or len(models) < gpus.count or gpus.count_unshown):
        return ""
    names = sorted(set(models.values()))
    if not all(wanted.lacks(m) for m in names):
        return ""
    if wanted.why is not None:
        return wanted.absent.format(models="; ".join(dict.fromkeys(wanted.why(m) or m for m in names)))
    return wanted.absent.format(models=", ".join(names))


def _vendor_counts(gpus: GpuInventory) -> tuple[tuple[str, int], ...]:
    """The GPU counts that may be NVIDIA GPUs': all but a count in the user's words that names no model where the
    sources show another vendor's GPUs (`a 4x GPU System` above rocm-smi's four rows, corpus 2696): that count is of
    the GPUs shown."""
    if gpus.others and not gpus.gpus:
        return tuple(c for c in gpus.counts if c[0] != USER_WORDS_TITLE)
    return gpus.counts


# The host-wide counts of a Kubernetes node: GFD's label and the node's GPU resources (facts/k8s_node.py). A pod's or a
# container's count is its own share of the host, which may be one GPU of an NVSwitch board's eight.
NODE_COUNTS = (GFD_TITLE, RESOURCE_TITLE)


def node_alone(gpus: GpuInventory) -> str:
    """Why a Kubernetes node shown has one GPU in all and so no NVSwitch fabric, in words; "" where its count is not
    one or not the node's (NODE_COUNTS), or where a model named may sit on an NVSwitch (an SXM module: a one-GPU VM of
    an NVSwitch board, whose partition the service VM's Fabric Manager sets up).

    The blind readings of the class agree (corpus 1958: a one-GPU Azure node, not applicable)."""
    if gpus.whole_count != 1 or not gpus.counts or gpus.counts[0][0] not in NODE_COUNTS:
        return ""
    if any(on_nvswitch(m) is not False for m in set(gpus.models.values())):
        return ""
    return (f"one GPU in all on the Kubernetes node ({gpus.counts[0][0]}): no GPU pair for an NVSwitch to join, so "
            "no Fabric Manager to run")


def no_switch_shown(topology: TopoMatrix | None, gpus: GpuInventory | None, p2p: P2pBandwidth | None = None,
                    serving_log: ServingLog | None = None, kernel_release: str = "") -> str:
    """Why a whole `nvidia-smi topo -m` (TopoMatrix.no_switch_fabric), a p2pBandwidthLatencyTest run at PCIe rates
    on every pair (P2pBandwidth.no_switch_fabric) or an engine that found its GPUs PCIe-only
    (ServingLog.no_switch_fabric) shows no NVSwitch fabric, in words; "" where none does, or where
    a GPU model the sources name may sit on an NVSwitch (an SXM module, a name the GPU table does not know or reads as
    several boards): the model, not the matrix, is what a board whose links are down still shows.

    The blind readings of this shape agree (corpus 577, 617, 625, 774: not applicable), as DRV-NVLINK-HEALTH reads a
    whole matrix without NV# as a PCIe build. A CUDA error 802 in the same source is an issue whatever the matrix
    shows (the symptom stands: only an unknown outcome becomes not applicable).
    So does NVIDIA's Linux for Tegra kernel (`5.10.120-rt70-tegra`, facts/platform.tegra_kernel) where no GPU the
    sources name may sit on an NVSwitch: a Jetson's GPU is integrated in its SoC, one to a board (corpus 2413)."""
    why = (topology.no_switch_fabric() if topology is not None else "") or (
        p2p.no_switch_fabric() if p2p is not None else "") or (
        serving_log.no_switch_fabric() if serving_log is not None else "") or (
        f"kernel {kernel_release} is a Jetson's Linux for Tegra kernel, whose GPU is integrated in the SoC, one to a "
        "board" if kernel_release and tegra_kernel(kernel_release) else "")
    if not why:
        return ""
    models = sorted(set(gpus.models.values())) if gpus is not None else []
    if any(on_nvswitch(m) is not False for m in models):
        return ""
    named = f" of {', '.join(models)}" if models else ""
    return f"no NVSwitch: {why}{named}; PCIe or NVLink-bridge GPUs need no Fabric Manager"
