"""CTR: containers (Docker, Podman, Kubernetes, LXC/Proxmox) around the serving engine.

Inside a container these checks read the container's own view (/dev/shm, limits, cgroups,
device nodes). On a host they read `docker inspect` and LXC/Proxmox configs and judge the
containers with GPUs or a serving engine. Elsewhere they are not applicable.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from stackaudit.checks.registry import (
    Fix,
    FixCost,
    Outcome,
    Sharpen,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts.applicability import SPLIT_OVER_GPUS, one_process_engine
from stackaudit.facts.cgroups import CgroupLimits
from stackaudit.facts.collect_env import CollectEnv, report_command
from stackaudit.facts.container import GKE_PLUGIN_LINE, ContainerInfo
from stackaudit.facts.container_specs import (
    ORIGIN_COMPOSE,
    ORIGIN_DOCKER_RUN,
    ORIGIN_INSPECT_EXCERPT,
    ORIGIN_K8S,
)
from stackaudit.facts.cuda_ran import CudaRan, CudaRuntime
from stackaudit.facts.devices import GpuDeviceAccess
from stackaudit.facts.docker import (
    DOCKER_DEFAULT_SHM,
    K8S_GPU_RESOURCE,
    NGC_CHECK,
    DockerContainer,
    DockerContainers,
    ngc_driver_found,
    one_process_triton,
    one_rank_engine,
)
from stackaudit.facts.engine_command import EngineCommands, StatedEngines
from stackaudit.facts.engines_shown import GGML
from stackaudit.facts.gpus import (
    GGML_TITLE,
    NVIDIA_TITLE,
    NVSMI_LIST_TITLE,
    P2P_MATRIX_TITLE,
    PCI_TITLE,
    TOPOLOGY_TITLE,
    TRITON_METRICS_TITLE,
    GpuInventory,
    OllamaCuda,
)
from stackaudit.facts.k8s_node import K8sNodes
from stackaudit.facts.k8s_pods import DEVICE_PLUGIN_IMAGE, K8sPods, StatedPodGpus
from stackaudit.facts.limits import CAP_SYS_NICE, MEMLOCK, NOFILE, STACK, ProcessSecurity, ResourceLimits
from stackaudit.facts.lxc import NVIDIA_MAJOR, NVIDIACTL_MINOR, LxcConfig, LxcConfigs
from stackaudit.facts.nvidia import NvidiaDriver, NvidiaGpus, NvidiaServices
from stackaudit.facts.parallelism import DOCKER, Parallelism
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.platform import Virtualization, vgpu_host
from stackaudit.facts.processes import ProcessInfo, ServingProcesses
from stackaudit.facts.ray_log import RayCluster
from stackaudit.facts.rdma import RdmaDevices
from stackaudit.facts.serving_logs import NcclNodes, NcclTestRuns, ServingLog
from stackaudit.facts.shm import ShmInfo
from stackaudit.facts.symptoms import IN_CONTAINER, IN_GPU_CONTAINER, K8S_GPUS_TAKEN
from stackaudit.facts.system import KernelLog, NumaTopology
from stackaudit.facts.trouble import Trouble
from stackaudit.fixes.model import (
    Persist,
    StepScope,
    advice,
    cmd,
    keep_cmd,
    keep_line,
    keep_text,
    sh,
    step,
)
from stackaudit.fixes.shell_quote import bash_word

KiB = 1024
MiB = 1024**2
GiB = 1024**3
SHM_MIN = 1 * GiB  # NCCL's example uses --shm-size=1g
MEMLOCK_ENOUGH = 4 * GiB  # "unlimited (or several GiB)"
NOFILE_MIN = 65536
NCCL_RUNTIME_ISSUES = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html"
VLLM_DOCKER = "https://docs.vllm.ai/en/latest/serving/deploying_with_docker.html"
VLLM_K8S = "https://docs.vllm.ai/en/stable/deployment/k8s/"
NCCL_PATHS = "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc"
NCCL_CUDAWRAP = "https://github.com/NVIDIA/nccl/blob/master/src/misc/cudawrap.cc"
OPEN_GPU_MLOCK = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/kernel-open/nvidia/os-mlock.c"
CTK_CDI = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html"
# The toolkit's driver capabilities: `compute` mounts the CUDA and OpenCL libraries, `utility` nvidia-smi and NVML.
CTK_CAPABILITIES = ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html"
                    "#driver-capabilities")
LXC_CONF_MAN = "https://man.archlinux.org/man/lxc.container.conf.5.en"
K8S_TOPOLOGY = "https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/"
_DOCKERISH = ("docker", "podman", "kubernetes", "container")


# --- helpers ---------------------------------------------------------------------------------


def _size(n: int | None) -> str:
    if n is None:
        return "unknown"
    for unit, factor in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= factor:
            value = n / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} B"


def _engine_tp(parallelism: Parallelism | None) -> int | None:
    """The largest tensor x pipeline parallel size among the running engines; None when none runs."""
    return parallelism.max_world_size if parallelism is not None else None


def _engine_limits(procs: ServingProcesses | None, own: ResourceLimits | None,
                   name: str) -> tuple[tuple[str, str] | None, str]:
    """(soft, hard) of one rlimit from the engine's processes if one runs, else the audit's own."""
    if procs is not None:
        for proc in procs.processes:
            if proc.limits and name in proc.limits:
                return proc.limits[name], f"engine pid {proc.pid} ({proc.engine or proc.comm})"
        if procs.found:
            return None, ""  # the engine runs: the audit's own limits say nothing about it
    if own is not None and name in own.values:
        if own.values[name][1] == "unknown":
            return own.values[name], "a pasted `ulimit -a` (soft limits)"
        return own.values[name], "the audit's own process (no serving engine found)"
    return None, ""


def _limit_bytes(value: str) -> int | None:
    """A limit value in bytes; None for unlimited; -1 where unknown."""
    if value == "unlimited":
        return None
    return int(value) if value.isdecimal() else -1


def _gpu_count(devices: GpuDeviceAccess | None) -> int | None:
    if devices is None or devices.nodes is None:
        return None
    return len(devices.gpu_nodes)


def _uid(proc: ProcessInfo) -> int | None:
    fields = proc.status.get("Uid", "").split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdecimal() else None


def _container_fix(does: str, commands: tuple[str, ...], keep: tuple[Persist, ...], cost: FixCost = "restart",
                   scope: StepScope = "container") -> Fix:
    return Fix.of(step(does, *commands, cost=cost, scope=scope, keep=keep))


# --- CTR-SHM-SIZE ----------------------------------------------------------------------------

_REMOUNT = "mount -o remount,size=16G /dev/shm"
_FSTAB_SHM = "tmpfs /dev/shm tmpfs defaults,size=16G 0 0"
# (what to do, its commands, how to keep it) per container kind.
_SHM_FIXES: dict[str, tuple[str, tuple[str, ...], tuple[Persist, ...]]] = {
    "docker": ("Recreate the container with the host's IPC namespace or a larger /dev/shm", (),
               (keep_line("--ipc=host", "docker run", label="Docker",
                          text="or `--shm-size=16g` (compose: `ipc: host` or `shm_size: 16gb`)"),)),
    "podman": ("Recreate the container with the host's IPC namespace or a larger /dev/shm", (),
               (keep_line("--ipc=host", "podman run", label="Podman", text="or `--shm-size=16g`"),)),
    "kubernetes": ("Redeploy the pod with a memory-backed /dev/shm", (),
                   (keep_line("dshm: emptyDir: {medium: Memory, sizeLimit: 16Gi}", "the pod spec, mounted at /dev/shm",
                              label="Kubernetes", text="counts against the pod's memory limit; or `hostIPC: true`"),)),
    "lxc": ("Remount /dev/shm larger inside the container", (_REMOUNT,),
            (keep_line(_FSTAB_SHM, "/etc/fstab in the container", text="bounded by the container's memory limit"),)),
    "": ("Remount /dev/shm larger", (_REMOUNT,), (keep_line(_FSTAB_SHM, "/etc/fstab"),)),
    "container": ("Recreate the container with the host's IPC namespace or a larger /dev/shm", (),
                  (keep_line("--ipc=host", "docker run", label="Docker", text="or `--shm-size=16g`"),
                   keep_line("emptyDir {medium: Memory, sizeLimit: 16Gi}", "the pod spec, mounted at /dev/shm",
                             label="Kubernetes", text="or `hostIPC: true`"))),
}


def _shm_fix(kind: str, scope: StepScope = "container") -> Fix:
    does, commands, keep = _SHM_FIXES.get(kind, _SHM_FIXES["docker"])
    return _container_fix(does, commands, keep, scope=scope)


def _where(container: ContainerInfo) -> str:
    if container.kind == "kubernetes":
        return "Kubernetes pod"
    return "container" if container.kind == "container" else f"{container.kind} container"


def _single_process(procs: ServingProcesses | None, parallelism: Parallelism | None) -> str:
    """Why the running engine barely touches /dev/shm ("" where it may not): one engine process at TP = PP = 1, or
    one vLLM instance whose whole command runs one rank (facts/docker.one_rank_engine: its API server reaches its one
    engine core over ZMQ sockets; the shared-memory broadcast queue and NCCL come with TP or PP > 1). SGLang runs
    tokenizer, scheduler and detokenizer as processes at any TP, and its documented run line sets `--shm-size 32g`."""
    if procs is None or not procs.found or (_engine_tp(parallelism) or 1) != 1 or _more_ranks_shown(parallelism):
        return ""
    if len(procs.processes) == 1 and procs.processes[0].engine not in ("vllm", "sglang"):
        return "the engine runs as one process with TP=1"
    roots = procs.roots()
    if procs.engines() == {"vllm"} and len(roots) == 1 and one_rank_engine("", roots[0].argv):
        return "its one vLLM instance runs one rank (its command sets no tensor, pipeline or data parallelism)"
    return ""


# Servers that run as one process with no tensor-parallel ranks (their image or command names them): also Hugging
# Face's text-embeddings-inference (one Rust router with its Candle backend in-process, no tensor parallelism:
# https://huggingface.co/docs/text-embeddings-inference) and infinity (`michaelf34/infinity:<tag>`, `infinity_emb`: one
# Python server process, its engines in-process: https://github.com/michaelfeil/infinity), corpus 2668 and 2677.
_ONE_PROCESS_SERVERS = re.compile(r"(?:^|[/:\s])(?:ollama|llama[.-]?cpp|llama-server|llamafile|text-embeddings-"
                                  r"(?:inference|router)|infinity(?=:|[-_]emb))\b", re.I)
_MULTI_PROCESS_SERVERS = re.compile(r"vllm|sglang|tensorrt|trtllm|triton|ray", re.I)


# Servers whose start runs no engine: they launch one later, per model, with that model's own tensor parallelism, so
# their command at start shows no engine, TP size or GPU split even where the engine they launch will need /dev/shm.
# Xinference (`xinference-local`, `xinference-supervisor`, `xinference-worker`; `xinference launch ... --n-gpu`:
# https://inference.readthedocs.io/en/latest/getting_started/using_xinference.html), GPUStack (it deploys each model
# with a backend it picks: https://docs.gpustack.ai/latest/overview/), LocalAI (`local-ai`, backends loaded per model:
# https://localai.io/docs/overview/), and NVIDIA's NIM images (`nvcr.io/nim/...`): a NIM picks its engine (vLLM,
# TensorRT-LLM, SGLang) and a profile of some TP size for the GPUs it is given when it starts, and logs the choice
# (https://docs.nvidia.com/nim/large-language-models/latest/profiles.html; corpus 2871).
ENGINE_LAUNCHERS = re.compile(r"(?:^|[/:\s])(?:xinference(?:-local|-supervisor|-worker)?|gpustack|local-?ai)\b"
                              r"|(?:^|\s)nvcr\.io/nim/", re.I)


def _one_process_server(c: DockerContainer) -> bool:
    """A container whose image/command is a one-process server (Ollama, llama.cpp, TEI, infinity:
    _ONE_PROCESS_SERVERS) and asks for no TP."""
    text = " ".join((c.image, *c.argv))
    return bool(_ONE_PROCESS_SERVERS.search(text)) and not _MULTI_PROCESS_SERVERS.search(text) and not \
        SPLIT_OVER_GPUS.search(text)


def _one_process_shown(procs: ServingProcesses | None, parallelism: Parallelism | None,
                       commands: EngineCommands | None, stated: StatedEngines | None, ollama: OllamaCuda | None,
                       runtime: CudaRuntime | None = None, gpus: GpuInventory | None = None) -> str:
    """Why the engines the pasted sources show all serve from one process (facts/applicability.one_process_engine,
    or a Triton image of a release that runs every model in its server process: facts/docker.one_process_triton);
    "" where a process list is read (it shows the engines itself: `_single_process`). Where no source names an engine,
    a ggml device list of one device (`ggml_cuda_init: found 1 CUDA devices`) shows a program built on ggml (GGML),
    which serves from one process and has no second GPU to split its model over."""
    if procs is not None and procs.found:
        return ""
    shown = (*(e.engine for e in (parallelism.engines if parallelism is not None else ())),
             *(stated.engines if stated is not None else ()), *(("ollama",) if ollama is not None else ()))
    shown = shown or ((GGML,) if gpus is not None and gpus.count_in(GGML_TITLE) == 1 else ())
    argvs = tuple(c.argv for c in (commands.commands if commands is not None else ()))
    triton = next(((r.where, release) for r in (runtime.runtimes if runtime is not None else ())
                   if (release := one_process_triton(r.where))), None)
    if triton and set(shown) <= {"triton"} and not _more_ranks_shown(parallelism) \
            and not any(SPLIT_OVER_GPUS.search(" ".join(argv)) for argv in argvs):
        return (f"Triton {triton[1]} ({triton[0]}) serves every model inside its one server process (its Python "
                "backend came with 20.10, its TensorRT-LLM backend with 23.10)")
    return one_process_engine(shown, argvs)


def _shm_workload(c: DockerContainer, parallelism: Parallelism | None, split: str = "") -> bool:
    """Whether a container shows work that shares memory between processes: a serving engine or a
    multi-process server named by its image or command, a TP/PP size, or two or more GPUs requested; or, for the one
    GPU container a paste shows, the user's sentence saying it runs with tensor parallelism (`split`)."""
    sizes = parallelism.for_container(c.id) if parallelism is not None else None
    text = " ".join((c.image, *c.argv))
    return (c.looks_like_serving or bool(_MULTI_PROCESS_SERVERS.search(text)) or c.tensor_parallel is not None
            or (sizes is not None and sizes.world_size > 1) or (c.gpu_count or 0) >= 2 or bool(split)
            or (c.mpi_ranks_per_host or 0) > 1)


# What still passes through /dev/shm in an engine that runs one rank: Triton's Python backend stubs exchange each
# request's tensors with the server through it (triton-inference-server/python_backend README, `shm-default-byte-size`).
_ONE_RANK_CAVEAT = {"Triton": "; a Python-backend model's stub does exchange its tensors through /dev/shm, so raise it "
                              "for large tensors there"}


def _more_ranks_shown(parallelism: Parallelism | None) -> bool:
    """Whether a source other than a container's command (a server log, a pasted command line, a running engine)
    shows an engine of more than one rank, or a size flag it does not read: the container's command then does not
    settle that its engine runs one."""
    return any(e.source != DOCKER and (e.world_size > 1 or (e.dp or 1) > 1 or bool(e.unread))
               for e in (parallelism.engines if parallelism is not None else ()))


def _shm_containers(containers: DockerContainers | None) -> tuple[DockerContainer, ...]:
    """The containers whose /dev/shm CTR-SHM-SIZE judges: GPU or serving ones, less those whose command runs
    only a GPU check or a wait (`nvidia-smi`, `sleep 30; nvidia-smi`: facts/docker.py DIAGNOSTIC_PROGRAMS)."""
    if containers is None:
        return ()
    # A pasted one-process server (Ollama, llama.cpp) is judged even where its GPU request is cut away: its
    # /dev/shm is not an issue whatever its size.
    # So is one whose command starts MPI ranks, several on one host (`mpirun -H IP1:8,IP2:8`), GPU request or not.
    return tuple(c for c in containers.containers if (c in containers.gpu_or_serving and not c.diagnostic_only)
                 or (c.origin and _one_process_server(c)) or (c.mpi_ranks_per_host or 0) > 1)


def _diagnostic_argv(containers: DockerContainers | None, label: str) -> str:
    c = next(c for c in containers.containers if c.label == label) if containers else None
    return (" ".join(c.argv)[:80] or f"image {c.image}") if c else ""


def _shm_free_only(shm: ShmInfo | None, procs: ServingProcesses | None = None,
                   parallelism: Parallelism | None = None) -> Outcome:
    """Where the source does not say whether it ran in a container, a size below SHM_MIN decides (an issue
    in a container and on a host alike, unless one process with TP = 1 runs), and a free-space figure (Ray's
    "/dev/shm has only N bytes available") only at the extremes: the size is at least the free space, and
    with under a tenth of SHM_MIN free /dev/shm is either below SHM_MIN or 90 % full."""
    if shm is not None and shm.size_bytes is not None and shm.size_bytes < SHM_MIN \
            and not _single_process(procs, parallelism):
        return issue(f"/dev/shm is {_size(shm.size_bytes)}: NCCL, PyTorch and vLLM's shared-memory queues need more; "
                     "multi-process serving fails or hangs at start, in a container and on a host alike",
                     actual=_size(shm.size_bytes), expected=">= 1 GiB (16 GiB or host IPC for TP > 1)",
                     subjects=("/dev/shm",), evidence=shm.evidence)
    free = shm.available_bytes if shm is not None and shm.size_bytes is None else None
    if shm is None or free is None:
        return unknown("could not read container: the source does not show whether it ran in a container",
                       hint="paste `df -k -P /dev/shm` and `cat /proc/1/cgroup`")
    if free < SHM_MIN // 10:
        return issue(f"/dev/shm has only {_size(free)} free: it is either smaller than {_size(SHM_MIN)} or over 90 % "
                     "full, and shared-memory segments (NCCL, PyTorch, vLLM's queues, Ray's object store) do not fit",
                     actual=f"{_size(free)} free", expected=f">= {_size(SHM_MIN)} (16 GiB or host IPC for TP > 1)",
                     subjects=("/dev/shm",), evidence=shm.evidence)
    if free >= SHM_MIN:
        return not_an_issue(f"/dev/shm has {_size(free)} free, so it is at least that large: not too small "
                            "(a program that asks for more than that still falls back)",
                            actual=f"{_size(free)} free", subjects=("/dev/shm",))
    return unknown(f"/dev/shm has {_size(free)} free; its size, and whether this ran in a container, are not in "
                   "this source", hint="paste `df -k -P /dev/shm`")


@check(
    "CTR-SHM-SIZE",
    title="/dev/shm too small (Docker and Kubernetes default 64 MiB)",
    severity="high",
    confidence="documented",
    fix=Fix.of(
    step("Docker: recreate the container with a larger /dev/shm; LXC or the host: remount it",
         "mount -o remount,size=16G /dev/shm", cost="restart", scope="container", changes="the size of /dev/shm",
         takes="recreate the container (LXC or the host: remount, then restart the engine)",
         keep=(keep_line("--ipc=host", "docker run", label="Docker", text="or `--shm-size=16g`"),
               keep_text("an emptyDir {medium: Memory} volume at /dev/shm, or hostIPC", label="Kubernetes"),
               keep_line("tmpfs /dev/shm tmpfs defaults,size=16G 0 0", "/etc/fstab", label="LXC / bare metal")))),
    references=(NCCL_RUNTIME_ISSUES, VLLM_DOCKER, VLLM_K8S,
                "https://github.com/pytorch/tutorials/commit/0ba3e39d736a1f5d46da5728e564569f8cd3fe8c"),
    sharpen=Sharpen("in a container: raise --shm-size (16g) or use --ipc=host; on the host: remount /dev/shm larger"),
)
def shm_size(container: ContainerInfo | None = None, shm: ShmInfo | None = None,
             docker_containers: DockerContainers | None = None, serving_processes: ServingProcesses | None = None,
             parallelism: Parallelism | None = None, engine_commands: EngineCommands | None = None,
             stated_engines: StatedEngines | None = None, ollama_cuda: OllamaCuda | None = None,
             cuda_runtime: CudaRuntime | None = None, gpus: GpuInventory | None = None) -> Outcome:
    """Reads: inside a container `df -k -P /dev/shm` and the tmpfs `size=` in /proc/self/mountinfo, or the NGC
    entrypoint's note that it is Docker's 64 MB (facts/shm.NGC_SHM_NOTE);
    on a Docker host `docker inspect` HostConfig.ShmSize and IpcMode of GPU/serving containers;
    on bare metal also systemd-logind's RemoveIPC (logind.conf) and the engine's user; the log
    symptoms of facts/symptoms.py (NCCL failing to create or extend its /dev/shm segment); last, the
    size the user states for their machine (`CPU Shared Memory: 64MB`, facts/shm.py SHM_WORDS).

    Bad value: /dev/shm below 1 GiB where tensor/pipeline parallelism or a multi-process engine
    runs (vLLM V1 always runs API server, engine core and workers as processes); Use% near 100 %;
    on bare metal `RemoveIPC=yes` (the default) with the engine run by a regular (uid >= 1000) user.

    Why: NCCL, PyTorch and vLLM's message queue put shared-memory segments in /dev/shm; when they
    do not fit NCCL fails at init ("failed to extend /dev/shm/nccl-...") or the engine crashes or
    hangs at start. logind's RemoveIPC deletes a user's segments when the user logs out.

    A symptom line proves the issue on its own, quoted, whatever the sizes say or leave unknown;
    whether it ran in a container only sharpens the fix. So does a size below 1 GiB where the source
    does not say whether it ran in a container: too small in a container and on a host alike.

    Traps: a single-process server with TP = 1 (Ollama, llama.cpp, text-embeddings-inference, infinity) barely uses
    /dev/shm (not an issue, whatever its pasted spec shows of the size: cut, host IPC, large, no GPU request); vLLM V1 and SGLang are
    multi-process even at TP = 1. Yet on a Docker host a container whose whole command runs vLLM at its default of one
    rank (no TP, PP or DP size, config file, Ray or MPI) or Triton's one server process (DockerContainer.one_rank_engine),
    with no other source showing more ranks, is not an issue at a small shown size: no NCCL ranks or tensor-parallel
    workers exchange tensors through its /dev/shm; a size its cut spec does not show stays unknown.
    The user's sentence that says the model runs with tensor parallelism (`the tensor parallelism does not work at
    all`: facts/engine_command.STATED_SPLIT) is that workload for the one GPU container the paste shows.
    So is an engine command of more than one rank (MLC's `tensor_parallel_shards=2`) shown beside the one GPU container
    whose command is a shell session (`docker run -it IMAGE bash`, `sleep infinity`): it is typed there.
    A container whose command starts MPI ranks, several on one host (`mpirun -np 16 -H IP1:8,IP2:8`:
    facts/processes.launcher_ranks_per_host), is judged with its GPU request shown or not: those ranks share its
    /dev/shm (NCCL's and Open MPI's on-node segments), so Docker's 64 MiB is an issue there (corpus 2389).
    A launcher that starts each model's engine later (Xinference, GPUStack, LocalAI, a NIM: ENGINE_LAUNCHERS) shows no engine
    or TP size at start, so a small /dev/shm in its container stays unknown. Given one GPU (a request's count 1), the
    engines it launches run no tensor-parallel ranks: not an issue (corpus 2157).
    With no process list read, the engines the paste shows decide it (facts/applicability.one_process_engine): where
    every one serves from one process and no command splits its model over GPUs, it is not an issue, in a container
    or not; where none is named, a ggml device list of one device (`ggml_cuda_init: found 1 CUDA devices`) shows such
    a program (llama.cpp's library inside Tabby: corpus 2370); an engine's own message among the log's symptoms shows
    it too (ollama 0.1.x's `gpu support may not be enabled`, in no log format a reader knows:
    facts/parallelism.parallelism_from_symptoms). So does an LMDeploy command that names its TurboMind backend
    (`--backend turbomind`, no `--tp`): the C++ engine runs inside the server's own process (corpus 2868). llama.cpp's
    `--split-mode tensor` reduces over NCCL, whose shared-memory transport may use /dev/shm within one process, so it
    stays open. A Triton image of an NGC release before 20.10 (its tag, in a spec or a line of its own) runs every
    model inside its one server process: no Python-backend stub or TensorRT-LLM rank exists there to share /dev/shm
    (facts/docker.one_process_triton), where the engines shown are Triton's alone. On a Docker host a container whose
    spec shows no engine, TP size or multi-GPU request gets a note naming the condition, not an
    issue; one that only runs a GPU check (`nvidia-smi`) is not judged; a whole spec whose command only holds its
    container open (`sleep 100000`, `sh -c "sleep 10d;"`: DockerContainer.keep_alive) keeps the /dev/shm it shows
    and runs nothing that shares it: not an issue (corpus 940, 1980); of a serving image (`tritonserver` held open by
    `while true; do sleep 10;done`, corpus 2424; or given a bare shell, `docker run -it IMAGE bash`, with no engine
    command or log shown beside it, corpus 2881), the engine exec'd there later decides, which the source does not
    show: unknown at a small size, ok where the size it shows is 1 GiB or more
    (corpus 2380: a pod held open by `sleep` with a 10Gi memory emptyDir, what is exec'd there gets it); one that binds
    the host's /dev/shm at /dev/shm gets the host's size. `--ipc=host` shares the host's
    /dev/shm (and the host IPC namespace: a security trade-off): the engines' documented setting, ok where the
    host's size is not shown (a tmpfs of half the RAM unless the host mounts it smaller), judged on the host's `df`
    where it is. A `--shm-size` beside `--ipc=host` sizes nothing: Docker mounts a
    tmpfs of that size only for a private or shareable IPC namespace. Newer NCCL
    prefers cuMem host memory over /dev/shm with CUDA >= 12.6, but vLLM/PyTorch still use it.
    A program the source shows run on the machine itself, outside any container (facts/container.ContainerInfo.on_host:
    a Python environment or build of the user's own, a systemd unit, `ollama serve` typed at a prompt, TGI's issue form
    ticking `The CLI directly`), with no container spec and no /dev/shm size or symptom shown: not applicable, no
    container's /dev/shm limit is in its path (corpus 1644). A systemd service of the machine (its unit's ExecStart,
    the words that start its service, the engine's own lines in the host's journal: `hpry ollama[28685]: ...`) is not
    applicable even where one process serves (corpus 1845, 1891). Where the sign of
    the host is weaker (a command typed at a prompt), a one-process engine is not an issue, as above (corpus 1798).
    """
    outcome = _shm_size(container, shm, docker_containers, serving_processes, parallelism,
                        stated_engines.split if stated_engines is not None else "")
    if outcome.status == "unknown" and container is not None and container.as_service and docker_containers is None \
            and (shm is None or shm.size_bytes is None):
        # A systemd service of the machine: no container's /dev/shm limit (Docker's 64 MiB) is in its path, however
        # many processes share it (corpus 1845). Weaker signs of the host (a prompt) leave one process the reason.
        return _on_host_shm(container)
    one = _one_process_shown(serving_processes, parallelism, engine_commands, stated_engines, ollama_cuda, cuda_runtime,
                             gpus)
    full = shm is not None and shm.use_ratio is not None and shm.use_ratio >= 0.9
    if one and not full and outcome.status in ("unknown", "issue"):
        # A size, shown or not, inside a container or not, is judged against the work that shares /dev/shm.
        size = f"/dev/shm is {_size(shm.size_bytes)}" if shm is not None and shm.size_bytes is not None else \
            "the size of /dev/shm is not shown"
        outcome = not_an_issue(f"{size}, but {one}, with no tensor split over GPUs shown: no worker processes or NCCL "
                               "ranks share /dev/shm with it, in a container or not",
                               actual=size, subjects=("/dev/shm",))
    if container is not None and container.in_container:
        fix = _shm_fix(container.kind)
        return replace(outcome, sharpen=Sharpen(f"inside this {_where(container)}: {fix.persistent}", fix))
    if outcome.status == "unknown" and container is not None and container.on_host and docker_containers is None \
            and (shm is None or shm.size_bytes is None):
        # The program runs on the machine itself: no container's /dev/shm limit (Docker's 64 MiB) is in its path.
        return _on_host_shm(container)
    return outcome


def _on_host_shm(container: ContainerInfo) -> Outcome:
    """CTR-SHM-SIZE not applicable for a program the source shows run on the machine itself (ContainerInfo.on_host)."""
    return not_applicable(f"not in a container: {container.evidence[0]}; no container's /dev/shm limit applies, "
                          "and the host's own /dev/shm (a tmpfs of half the RAM unless the host mounts it smaller) "
                          "is not shown", actual=container.evidence[0])


# logind's RemoveIPC=yes deletes a user's /dev/shm segments when that user logs out.
_LOGIND_FIX = Fix.of(step("Keep the engine's shared memory across logouts, then restart logind",
                          "systemctl restart systemd-logind", changes="logind's RemoveIPC",
                          keep=(keep_line("RemoveIPC=no", "/etc/systemd/logind.conf",
                                          text="or run the engine as a system user / systemd service"),)))


def _shm_size(container: ContainerInfo | None, shm: ShmInfo | None, docker_containers: DockerContainers | None,
              serving_processes: ServingProcesses | None, parallelism: Parallelism | None, split: str = "") -> Outcome:
    """CTR-SHM-SIZE from the sizes the facts show (the engine adds the log's symptoms)."""
    procs = serving_processes
    if container is None:
        return _shm_free_only(shm, procs, parallelism)
    if container.in_container:
        fix = _shm_fix(container.kind)
        shm = docker_containers.shm_inside(shm) if docker_containers is not None else shm
        if shm is None or shm.size_bytes is None:
            return unknown("the size of /dev/shm is not in this source",
                           hint="run `df -k -P /dev/shm` inside the container")
        size = shm.size_bytes
        if size < SHM_MIN:
            if one := _single_process(procs, parallelism):
                return not_an_issue(
                    f"/dev/shm is {_size(size)}, but {one}, which barely uses /dev/shm", actual=_size(size),
                    expected=">= 1 GiB for TP > 1 or multi-process engines",
                    subjects=("/dev/shm",))
            tp = _engine_tp(parallelism)
            why = f" with TP x PP = {tp}" if tp and tp > 1 else ""
            return issue(
                f"/dev/shm is {_size(size)} in this {_where(container)}{why}: NCCL, PyTorch and vLLM's "
                "shared-memory queues need more; multi-process serving fails or hangs at start "
                f"({'64 MiB is the ' + container.kind + ' default; ' if size == DOCKER_DEFAULT_SHM else ''}"
                f"fix: {fix.persistent})",
                actual=_size(size), expected=">= 1 GiB (16 GiB or host IPC for TP > 1)", subjects=("/dev/shm",),
                fix=fix, evidence=shm.evidence)
        ratio = shm.use_ratio
        if ratio is not None and ratio >= 0.9:
            return issue(f"/dev/shm is {ratio:.0%} full ({_size(shm.used_bytes)} of {_size(size)}): new segments "
                         "will fail under load", actual=f"{ratio:.0%} used", expected="headroom",
                         subjects=("/dev/shm",), fix=fix, evidence=shm.evidence)
        return ok(f"/dev/shm is {_size(size)}" + (f", {ratio:.0%} used" if ratio is not None else ""),
                  actual=_size(size), subjects=("/dev/shm",))

    findings: list[str] = []
    subjects: list[str] = []
    single: list[str] = []
    single_labels: list[str] = []
    unshown: list[str] = []
    unshown_labels: list[str] = []
    later: list[str] = []
    host_fix: Fix | None = None
    host_size = shm.size_bytes if shm is not None else None
    host_ipc_unsized: list[str] = []
    judged = _shm_containers(docker_containers)
    split = split if len(judged) == 1 else ""  # the user's words name no container: only one it can be
    # The one container a paste shows whose command is a shell session (`docker run -it IMAGE bash`): the engine
    # commands the paste shows after it are typed there, so one of more ranks is its workload (corpus 1906).
    typed = len(judged) == 1 and judged[0].session and _more_ranks_shown(parallelism)
    # An engine a source other than a container's command shows (typed in a shell the paste opens, corpus 2881's kind).
    engine_elsewhere = any(e.source != DOCKER for e in (parallelism.engines if parallelism is not None else ()))
    for c in judged:
        c_size = c.shm_bytes
        size_seen = ("ShmSize not shown (the spec is cut)" if c.shm_unshown
                     else "the host's /dev/shm" if c_size is None else f"ShmSize {_size(c_size)}")
        if _one_process_server(c):
            # Its size, shown or not (a cut spec, the host's /dev/shm, a large one), is judged against the work that
            # shares it: none does, so /dev/shm is not on its path.
            single.append(f"container {c.label}: {size_seen}, but {c.image or 'its server'} serves from one process "
                          "with no tensor-parallel ranks, which barely uses /dev/shm")
            single_labels.append(c.label)
            continue
        rank = c.one_rank_engine if not split and not _more_ranks_shown(parallelism) else ""
        if rank and not c.shm_unshown and c_size is not None and c_size < SHM_MIN:
            # A multi-process engine whose whole command runs one rank: no NCCL ranks or TP workers share /dev/shm.
            single.append(f"container {c.label}: {size_seen}, but its {rank} runs one rank (its whole command sets no "
                          "tensor, pipeline or data parallelism, each 1 by default): no NCCL ranks or tensor-parallel "
                          "workers exchange tensors through /dev/shm" + _ONE_RANK_CAVEAT.get(rank, ""))
            single_labels.append(c.label)
            continue
        if c.shm_unshown:
            continue
        if (c.ipc_mode == "host" or c.host_shm) and host_size is None:
            # It gets the host's /dev/shm, whose size this source does not show; a `--shm-size` beside it sizes
            # no tmpfs (Docker mounts one only for a private or shareable IPC namespace: moby setupIPCDirs).
            host_ipc_unsized.append(f"{c.label}: " + ("host IPC" if c.ipc_mode == "host" else
                                                      "binds the host's /dev/shm at /dev/shm"))
        if c_size is not None and c_size < SHM_MIN and (c.keep_alive or (c.session and not engine_elsewhere)) \
                and c.looks_like_serving and not split \
                and not typed and not (c.gpu_count or 0) >= 2 and not (c.mpi_ranks_per_host or 0) > 1:
            # A serving image whose command only holds the container open, or opens a shell in it (`docker run -it
            # IMAGE bash`, no engine command shown typed there): its engine is started inside later (`kubectl exec`,
            # `docker exec`, the shell), with ranks this source does not show (corpus 2424, 2881).
            later.append(f"container {c.label}: /dev/shm {_size(c_size)} (IpcMode {c.ipc_mode or 'private'}), and its "
                         f"command {'only holds it open' if c.keep_alive else 'opens a shell'} ({' '.join(c.argv)[:60]}):"
                         f" the engine of its image {c.image} is "
                         "started inside it later, by hand, with a number of processes this source does not show")
            continue
        if c_size is not None and c_size < SHM_MIN:
            if not _shm_workload(c, parallelism, split) and ENGINE_LAUNCHERS.search(" ".join((c.image, *c.argv))):
                if c.gpu_count == 1:
                    # Given one GPU, whatever engine it launches runs no tensor-parallel ranks to share /dev/shm.
                    single.append(f"container {c.label}: /dev/shm {_size(c_size)} (IpcMode {c.ipc_mode or 'private'}), "
                                  "but its launcher is given one GPU (its request's count 1): a model's engine there "
                                  "runs no tensor-parallel ranks, which barely use /dev/shm")
                    single_labels.append(c.label)
                    continue
                # A launcher's engines come later, per model: what will share its /dev/shm is not shown.
                later.append(f"container {c.label}: /dev/shm {_size(c_size)} (IpcMode {c.ipc_mode or 'private'}), and "
                             f"its command ({' '.join(c.argv)[:60] or 'the image ' + repr(c.image) + ' default'}) "
                             "starts a launcher that runs each model's engine later, with that model's own tensor "
                             "parallelism, which this source does not show")
                continue
            if not _shm_workload(c, parallelism, split) and not typed:
                # The size matters only where several processes share memory; nothing shown runs them here.
                unshown.append(f"container {c.label}: /dev/shm {_size(c_size)} (IpcMode {c.ipc_mode or 'private'}), "
                               f"but its command ({' '.join(c.argv)[:60] or 'the image ' + repr(c.image) + ' default'}"
                               ") shows no engine, tensor parallelism or multi-GPU request: it matters only if a "
                               "multi-process engine, NCCL or PyTorch workers run there")
                unshown_labels.append(c.label)
                continue
            misplaced = c.flag("--shm-size") is not None and c.shm_size is None
            # The misplaced flag is the fault itself, so it stays inside the first clause (the finding's title).
            ipc = f"IpcMode {c.ipc_mode or 'private'}" + (
                "; the `--shm-size` in its command goes to the engine, not to Docker" if misplaced else "")
            said = f" while the user's words say it runs tensor parallelism ('{split[:100]}')" \
                if split and not _shm_workload(c, parallelism) else \
                " while an engine command the paste shows typed in its shell runs more than one rank" \
                if typed and not _shm_workload(c, parallelism) else ""
            mpi = c.mpi_ranks_per_host or 0
            said += f", where its MPI launcher places {mpi} ranks on one host" if mpi > 1 else ""
            findings.append(f"/dev/shm is {_size(c_size)} in container {c.label} ({ipc}){said}"
                            + (": set the service's `shm_size:` or `docker run --shm-size`" if misplaced else ""))
            subjects.append(c.label)
            host_fix = _shm_fix("docker")
    if shm is not None and shm.size_bytes is not None and shm.size_bytes < SHM_MIN:
        findings.append(f"this host's /dev/shm is {_size(shm.size_bytes)}")
        subjects.append("/dev/shm")
        host_fix = host_fix or _shm_fix("", scope="host")
    if shm is not None and shm.logind_remove_ipc and procs is not None:
        users = sorted({u for p in procs.processes if (u := _uid(p)) is not None and u >= 1000})
        if users:
            findings.append(f"systemd-logind RemoveIPC=yes and the engine runs as uid {', '.join(map(str, users))}: "
                            "its /dev/shm segments are deleted when that user logs out")
            subjects.append("RemoveIPC")
            host_fix = host_fix or _LOGIND_FIX
    if findings:
        return issue("; ".join(findings), actual=findings, expected=">= 1 GiB /dev/shm (or --ipc=host) per "
                     "serving container", subjects=subjects, fix=host_fix)
    if host_ipc_unsized:
        sized = [c.label for c in judged if c.ipc_mode == "host" and c.shm_size]
        unused = (f"; the shm size that {', '.join(sized)} sets applies only to a private IPC namespace"
                  if sized else "")
        # The documented setting (vLLM's and SGLang's docker run): the host's /dev/shm is a tmpfs of half the RAM
        # unless the host mounts it smaller, which a host `df` would show and this check judges.
        return ok(f"{'; '.join(host_ipc_unsized)}, so the container shares the host's /dev/shm (a tmpfs of half the "
                  f"RAM unless the host mounts it smaller; its size is not in this source){unused}",
                  actual="host IPC", subjects=("/dev/shm",))
    if later:
        return unknown("; ".join(later), hint="show the engine and tensor-parallel size of the models it launches "
                       "(its model list, or the launch command); a multi-process engine or TP > 1 needs "
                       "`--shm-size=16g` or `--ipc=host`")
    if single or unshown:
        return not_an_issue("; ".join(single + unshown), actual=single + unshown, subjects=single_labels + unshown_labels)
    observed = []
    shown = [c for c in judged if not c.shm_unshown]
    # A pasted spec is the container asked about, with a GPU request or without one (`docker run nvidia/cuda nvidia-smi`).
    tests = [c.label for c in docker_containers.containers if c.diagnostic_only
             and (c.origin or c in docker_containers.gpu_or_serving)] if docker_containers else []
    # A whole spec whose command only holds its container open (`sleep 100000`, keep_alive) lives on with the /dev/shm
    # its spec gives it, shown (the runtime's 64 MiB where it mounts none), and runs nothing that shares it: the size
    # costs nothing (corpus 940, 1980). A check that exits (`nvidia-smi`) has no /dev/shm to judge.
    waits = [c for c in docker_containers.containers if c.keep_alive and c.origin and not c.excerpt
             and not c.looks_like_serving] if docker_containers else []
    roomy = [c for c in waits if c.shm_bytes is not None and c.shm_bytes >= SHM_MIN]
    if not shown and tests and waits and len(roomy) == len(waits) == len(tests) and (shm is None or shm.size_bytes is None):
        # What the user later runs inside (`kubectl exec`, `docker exec`) gets a /dev/shm of that size: large enough
        # whatever shares it (corpus 2380: a 10Gi memory emptyDir in a pod started to sleep).
        return ok("; ".join(f"{c.label}: /dev/shm {_size(c.shm_bytes)}" for c in roomy)
                  + f", held open ({' '.join(_diagnostic_argv(docker_containers, roomy[0].label).split())}) for the work run inside it "
                  "later, which gets that /dev/shm: not the 64 MiB default", actual=_size(roomy[0].shm_bytes),
                  subjects=("/dev/shm",))
    if not shown and tests and waits and len(waits) == len(tests) and (shm is None or shm.size_bytes is None):
        return not_an_issue("; ".join(
            f"{c.label}: /dev/shm {'host IPC' if c.shm_bytes is None else _size(c.shm_bytes)}"
            + (" (the runtime's default: its spec mounts none)" if c.shm_size is None and c.ipc_mode != "host" else "")
            for c in waits) + f", but its command only holds the container open ({_diagnostic_argv(docker_containers, waits[0].label)}"
            "): no engine, NCCL or worker processes share memory there", actual={c.label: " ".join(c.argv) for c in waits},
            subjects=[c.label for c in waits])
    if not shown and tests and (shm is None or shm.size_bytes is None):
        return not_applicable(f"{', '.join(tests)} only run{'s' if len(tests) == 1 else ''} a GPU check or a wait "
                              f"({_diagnostic_argv(docker_containers, tests[0])}): no engine, NCCL or worker "
                              "processes share memory there")
    if shown:
        observed.append(", ".join(f"{c.label}: {'host IPC' if c.shm_bytes is None else _size(c.shm_bytes)}"
                                  for c in shown))
    if shm is not None and shm.size_bytes is not None:
        observed.insert(0, f"/dev/shm is {_size(shm.size_bytes)}")
    if not observed:
        return unknown("neither /dev/shm nor any container's shm size is in this source",
                       hint="run `df -k -P /dev/shm` where the server runs")
    return ok("; ".join(observed), actual=observed[0], subjects=("/dev/shm",))


# --- CTR-IPC-ISOLATION -----------------------------------------------------------------------


def _ipc_key(c: DockerContainer, by_name: dict[str, DockerContainer]) -> str:
    if c.ipc_mode == "host":
        return "host"
    if c.ipc_mode.startswith("container:"):
        target = c.ipc_mode.split(":", 1)[1]
        match = by_name.get(target) or next((o for o in by_name.values() if o.id.startswith(target)), None)
        return match.id if match else target
    return c.id


_RAY = re.compile(r"\bray\b", re.IGNORECASE)


def _distributed(proc: ProcessInfo) -> bool:
    nnodes = proc.flag("--nnodes")
    return (nnodes is not None and nnodes.isdecimal() and int(nnodes) > 1) or proc.has_flag(
        "--node-rank", "--headless", "--data-parallel-address")


@check(
    "CTR-IPC-ISOLATION",
    title="TP ranks in different containers or pods on the same host",
    severity="high",
    confidence="source-verified",
    fix=advice("Run all TP ranks in one container/pod (the normal vLLM/SGLang mode); if a split is unavoidable, "
                   "share the IPC namespace and set the same NCCL_HOSTID in every rank", cost="restart",
                   scope="container", takes="recreate the ranks' containers",
                   keep=(keep_line("--ipc=container:<first>", "docker run", label="Docker", text="or hostIPC"),
                         keep_line("NCCL_HOSTID=<same value>", "every rank's environment", label="NCCL"))),
    references=(NCCL_PATHS, "https://github.com/NVIDIA/nccl/blob/master/src/misc/utils.cc",
                "https://github.com/NVIDIA/nccl/issues/1781"),
)
def ipc_isolation(container: ContainerInfo | None = None, docker_containers: DockerContainers | None = None,
                  serving_processes: ServingProcesses | None = None, shm: ShmInfo | None = None,
                  parallelism: Parallelism | None = None, serving_log: ServingLog | None = None,
                  gpus: GpuInventory | None = None, ray_cluster: RayCluster | None = None,
                  k8s_nodes: K8sNodes | None = None, engine_commands: EngineCommands | None = None) -> Outcome:
    """Reads: on a Docker host, the GPU containers started as ranks of one group (`--nnodes`,
    `--node-rank`, `ray start --address`, `--headless`) and their IpcMode and NCCL_HOSTID; inside a
    container, the engine's flags, this container's boot_id and /dev/shm device number.

    Bad value: two or more rank containers on one host that do not share an IPC namespace (and so
    /dev/shm), or that differ in hostname without a common NCCL_HOSTID.

    Why: NCCL decides "same node" from a host hash (hostname + host id, or NCCL_HOSTID) and turns
    off both P2P and SHM when the ranks' /dev/shm device ids differ (`ncclTopoCheckP2p`, paths.cc):
    intra-node traffic then goes over the network transport, sockets without IB.

    Traps: multi-node TP legitimately uses NET; NCCL may also pick NET/IB inside one host on purpose
    when nearby NICs beat the GPU path (IC-NCCL-ENV). From inside one container the other ranks are
    invisible: compare `cat /proc/sys/kernel/random/boot_id` and `stat -c %d /dev/shm` across them.
    A one-host NCCL log whose SHM and P2P channels join every rank shows the shared namespace itself.
    So does one whose host is a Kubernetes pod's name, for the ranks whose processes log from the pod (its
    containers share one IPC namespace), or for every rank where the log puts the whole job on that host (`nNodes 1`,
    every `rank R nranks N` shown), or, where no channel line names the ranks, for the processes on CUDA devices of
    their own that log from the pod.
    So does vLLM's "Detected 1 nodes in the distributed environment" for a world of two or more ranks: vLLM
    counts as one node the ranks that open one shared-memory segment.
    So does vLLM's message-queue handle whose readers are all local (remote subscribe address None) and, with
    its writer, make up the whole world: every reader attaches the writer's shared-memory segment.
    A NCCL log from several named hosts whose SHM and P2P channels join each host's ranks into one group shows one
    namespace per host (NET joins the hosts).
    So do the NCCL lines of two processes or more that all log from one container's default hostname (its id,
    `c6ad99331184`), whichever CUDA device each names: the processes of one container share its IPC namespace
    (corpus 1883: eight DDP ranks, each given one GPU, all `[0]`).
    A Ray worker container that joins its head at a loopback address runs on the head's host, so the head's container
    holds ranks of the same group.
    A TGI container told to shard (`SHARDED=true`, `--sharded true`) starts every shard inside it: ok (corpus 1662).
    A cut spec that shows no container given a GPU or running the engine (a KubeRay head whose GPU worker groups lie
    past the cut) does not show where the ranks run: unknown, not "nothing split" (corpus 1663).
    One container started as no rank of a group that holds two or more GPUs (its ids or count, or `--gpus all`
    where the sources show two or more GPUs) keeps every rank its engine starts inside it: ok, as for TP > 1.
    A container whose command only holds it open for `docker exec` (`sleep 8640000`, `tail -f /dev/null`) counts as
    such a container: its engine is started inside it. Not where the paste shows nvidia-smi typed at the prompts of
    two hosts or pods or more (`root@8pxb`, `root@9pxb`: ContainerInfo.gpu_prompt_hosts): a job's ranks may span
    them, and which node each runs on is not shown: unknown (corpus 2380).
    Two GPU containers or more shown on the host, all in the host's IPC namespace, share its one /dev/shm whatever
    ranks each holds: ok (corpus 1754, two `--ipc=host` containers with one rank typed into each).
    Every GPU container shown on the host in the host's IPC namespace (`--ipc=host`), at most one of them a rank of a
    group, with an engine of two ranks or more shown (TP x PP, or a rank of a multi-node group): ok, the ranks on this
    host share the host's /dev/shm (corpus 663, 1115, 1579; an NCCL communicator of two ranks or more in the log shows
    such an engine where no size is read, 1616); without host IPC such a node's one container stays not
    applicable (790).
    An engine of two ranks or more on Ray whose log shows Ray starting a local instance (`Started a local Ray
    instance.`: `ray.init()` found no cluster to join, facts/ray_log.RayCluster.started_here), with no container spec
    and no second host shown: its raylet spawns every worker on this machine, in the IPC namespace of the program that
    started it (a container's, where it runs in one): ok (corpus 1693).
    A pasted launcher that starts every rank itself on the machine where it is typed (facts/engine_command.py
    LOCAL_RANK_LAUNCHERS: `launch_triton_server.py --world_size 2` runs `mpirun` with no host list), with no container
    spec shown: its ranks are its own child processes, in the IPC namespace of the shell it is typed in: ok (corpus
    1962, 2035); so too where the containers shown include no rank of a group (corpus 2092: typed in the one
    container, which is given the GPUs and runs `bash`).
    So does NVIDIA Dynamo's `dynamo serve` (0.1-0.3) whose resolved service config in its log shows a vLLM worker of
    two ranks or more (`'VllmWorker': {'tensor-parallel-size': 8, ...}`, facts/serving_logs.dynamo_workers), with no
    container spec, no Ray backend and no second host shown: it runs its graph's services as local processes, and
    each vLLM worker starts its ranks as its own children: ok (corpus 2873, 2875).
    A Ray cluster whose `ray status` shows every node's GPUs, all of them on one node (a CPU head beside one GPU node,
    corpus 2386), with no container spec shown: Ray runs each GPU worker on that node as a child of its raylet, in one
    IPC namespace: ok.
    Pasted Kubernetes nodes (`kubectl describe node`) each offering one GPU device in all (`nvidia.com/gpu: 1`), with
    no container spec shown, hold no group of ranks on one host to split across pods: not applicable (corpus 1945).
    A paste from inside a container or pod (no process table) whose engine asks for two ranks or more, typed with no
    launcher that places them: where the ranks run is not shown (a KubeRay head pod's `vllm serve`, whose ranks Ray
    places on worker pods): unknown, not "no serving engine" (corpus 2577).
    """
    group = serving_log.ipc_group() if serving_log is not None else ()
    if group and serving_log is not None:
        shown = ", ".join(map(str, group))
        said = (f"NCCL ranks {shown} of one host all log from container {serving_log.container_host()} (its "
                "default hostname), so they share its IPC namespace" if serving_log.container_host() else
                f"NCCL ranks {shown} log from pod {serving_log.pod_host()}, whose name no other pod has: they run in "
                "that pod, whose containers share one IPC namespace (the ranks they reach over NET are other pods')"
                if serving_log.pod_host() and group == serving_log.pod_ranks() else
                f"every rank ({shown}) logs from pod {serving_log.pod_host()}, whose name no other pod has, and the log "
                "puts the whole job on that host: the ranks share the pod's IPC namespace"
                if serving_log.pod_host() and group == serving_log.pod_whole() else
                f"NCCL joins ranks {shown} of one host through SHM and P2P, which it opens only between ranks that "
                "share one /dev/shm (one IPC namespace)" if not serving_log.multi_host else
                f"NCCL joins ranks {shown} on each of hosts {', '.join(serving_log.nccl_hosts[:4])} through SHM and "
                "P2P, which it opens only between ranks that share one /dev/shm (one IPC namespace per host; NET "
                "joins the hosts)")
        judged = ok(said,
                    actual=sorted(serving_log.transports()), subjects=[f"rank {r}" for r in group])
        return over_subjects(judged, [f"rank {r}" for r in group], serving_log.comm_ranks or None)
    in_pod = serving_log.ranks_on_one_host() if serving_log is not None and serving_log.pod_host() else ""
    if in_pod and serving_log is not None:
        # No channel line names the ranks (corpus 1368: affinity and NVLS lines only), but each process logs from the
        # one pod, whose containers share one IPC namespace.
        return ok(f"{in_pod}, a pod's name no other pod has: its processes share the pod's IPC namespace",
                  actual={"pod": serving_log.pod_host(), "processes": len(serving_log.nccl_pids)},
                  subjects=[f"GPU {d}" for d in serving_log.nccl_devices])
    in_box = serving_log.container_processes() if serving_log is not None else ""
    if in_box and serving_log is not None:
        return ok(f"{in_box}: the processes of one container share its IPC namespace",
                  actual={"container": serving_log.container_host(), "processes": len(serving_log.nccl_pids)},
                  subjects=[f"container {serving_log.container_host()}"])
    shared = serving_log.shared_shm() if serving_log is not None else ()
    if shared and serving_log is not None:
        return ok(f"vLLM found all {serving_log.shm_ranks()} ranks on one node by opening one shared-memory segment "
                  "from every rank, so they share one /dev/shm (one IPC namespace)",
                  actual={"world_size": serving_log.shm_ranks(), "nodes": 1}, evidence=list(shared))
    local = ray_cluster.started_here if ray_cluster is not None else ""
    world = parallelism.shown_world_size if parallelism is not None else None
    if local and (world or 0) > 1 and docker_containers is None \
            and not (serving_log is not None and serving_log.multi_host):
        # `ray.init()` started a head on this machine: its raylet spawns every worker here, beside the driver.
        return ok(f"the engine's {world} ranks (TP x PP) are Ray workers of the instance its own program started on "
                  f"this machine (Ray: `{local}`): its raylet spawns every worker there, in the IPC namespace of the "
                  "program that started it, so no container boundary splits them",
                  actual={"ranks": world, "ray": local}, evidence=list(ray_cluster.lines if ray_cluster else ()))
    gpu_nodes = [n for n in (ray_cluster.node_gpus if ray_cluster is not None else ()) if n]
    if ray_cluster is not None and len(gpu_nodes) == 1 and gpu_nodes[0] > 1 and docker_containers is None \
            and not (serving_log is not None and serving_log.multi_host):
        # Ray places a GPU worker only on a node that offers GPUs; a node's workers are its raylet's child processes.
        return ok(f"{ray_cluster.words}, of which one node holds all {gpu_nodes[0]} GPUs: Ray runs every GPU worker "
                  "on that node, as child processes of its raylet in one IPC namespace (one container or pod per Ray "
                  "node), so no container boundary splits the GPUs' ranks",
                  actual={"node_gpus": list(ray_cluster.node_gpus)}, evidence=list(ray_cluster.lines))
    grouped = [w for w in (serving_log.dynamo_workers if serving_log is not None else ()) if w[1] > 1]
    if grouped and docker_containers is None and serving_log is not None and not serving_log.multi_host \
            and not any(ray for _, _, ray in serving_log.dynamo_workers):
        # `dynamo serve` runs its graph's services as local processes, and each vLLM worker starts its TP ranks as its
        # own children (vLLM's multiprocessing executor, no Ray): a group never spans a container boundary.
        return ok("dynamo serve starts its graph's workers as local processes, and each vLLM worker its tensor-parallel "
                  "ranks as its own children (" + ", ".join(f"{name}: TP {tp}" for name, tp, _ in grouped)
                  + "): no container boundary splits a group, its ranks share one IPC namespace",
                  actual={"workers": {name: tp for name, tp, _ in grouped}}, evidence=[serving_log.dynamo_line[:300]])
    here = [c for c in (engine_commands.commands if engine_commands is not None else ())
            if (c.ranks_started_here or 0) > 1]
    if here and docker_containers is None:
        launched = here[0]
        return ok(f"{posixpath.basename(launched.argv[0])} starts its {launched.ranks_started_here} ranks itself, as "
                  "child processes of the machine where it is typed (“"
                  f"{launched.quoted}”): no container boundary splits them, they share one IPC namespace",
                  actual={"ranks": launched.ranks_started_here}, evidence=[launched.quoted])
    if container is None:
        return unknown("could not read container: the source does not show whether it ran in a container",
                       hint="paste `cat /proc/1/cgroup`, or the ranks' NCCL_DEBUG=INFO channel lines")
    if container.in_container:
        procs = serving_processes
        identity = {"boot_id": shm.boot_id if shm else "", "shm_device": shm.device if shm else ""}
        world = parallelism.shown_world_size if parallelism is not None else None
        by_launcher = any(c.launcher for c in (engine_commands.commands if engine_commands is not None else ()))
        if (procs is None or not procs.found) and (world or 0) > 1 and shm is None and not by_launcher:
            # A paste (no process table) whose engine asks for two ranks or more, typed with no launcher that places
            # them (srun, mpirun): where they run is not shown (corpus 2577, a KubeRay head pod).
            return unknown(f"the engine shown asks for {world} ranks (TP x PP), but no process table or rank log "
                           "shows whether all of them run in this container or pod (Ray or a launcher may place "
                           "them in others)", actual={"ranks": world},
                           hint="paste the ranks' NCCL_DEBUG=INFO channel lines, or `ray status` and the pods' specs")
        if procs is None or not procs.found:
            return not_applicable("no serving engine found in this container; if TP ranks run in several "
                                  "containers, compare boot_id and /dev/shm device across them", actual=identity)
        if any(_distributed(p) for p in procs.processes):
            return unknown("the engine runs as one rank of a multi-node/multi-container group; whether the other "
                           "ranks share this host cannot be seen from here", actual=identity,
                           hint="compare `cat /proc/sys/kernel/random/boot_id`, `hostname` and `stat -c %d "
                           "/dev/shm` across the ranks' containers; NCCL_DEBUG=INFO `via NET` between ranks "
                           "of one host confirms it")
        return ok(f"all ranks run in this container (TP x PP = {_engine_tp(parallelism) or 1})", actual=identity)
    single = k8s_nodes.single_gpu() if k8s_nodes is not None else ()
    if docker_containers is None and single:
        # One GPU device per node: a pod there holds at most it, so no group of ranks splits across its pods.
        return not_applicable(f"the Kubernetes node{'s' if len(single) > 1 else ''} shown offer"
                              f"{'' if len(single) > 1 else 's'} one GPU device in all ("
                              + K8sNodes.device_lines(single) + "): no tensor-parallel ranks on one host to split "
                              "across pods")
    if docker_containers is None and container.outside_spec:
        return unknown("a pasted container spec, but its containers (the ranks and their IPC mode) are not in this "
                       "source", hint="paste the whole spec, or `docker inspect` of every rank container")
    if docker_containers is None:
        return not_applicable("not in a container and no Docker containers to compare")
    by_name = {c.name: c for c in docker_containers.containers}
    ranks = [c for c in docker_containers.gpu_or_serving if c.distributed_rank]
    if any(c.ray_worker_on_loopback for c in ranks):
        # A Ray worker that joins its head at a loopback address runs on the head's host: the head holds ranks too.
        ranks = [c for c in docker_containers.gpu_or_serving if c.distributed_rank or c.ray_head]
    if len(ranks) < 2:
        whole = [(c, size) for c in docker_containers.gpu_or_serving if not ranks and parallelism is not None
                 and (sizes := parallelism.for_container(c.id)) is not None and (size := sizes.world_size) > 1
                 and not _RAY.search(" ".join(c.argv))]
        if whole:
            # The engine's own TP x PP ranks start inside the one container: nothing crosses a container boundary
            # (Ray's executor may place ranks in other nodes' containers, so a Ray engine is not judged so).
            judged = ok("all ranks run inside one container: " + ", ".join(f"{c.label} (TP x PP = {size})"
                                                                           for c, size in whole),
                        actual={c.label: size for c, size in whole}, subjects=[c.label for c, _ in whole])
            # The GPUs a container is given by index are the ranks' GPUs the spec shows, of TP x PP in all.
            given = [f"GPU {d}" for c, _ in whole for r in c.device_requests if r.is_gpu
                     for d in r.device_ids if d.isdecimal()]
            return over_subjects(judged, given, sum(size for _, size in whole)) if given else judged
        # TGI told to shard (`SHARDED=true`, `--sharded true`) over GPUs whose count is not read: its launcher starts
        # every shard as a process of its own container (corpus 1662), two or more of them.
        sharded = [c for c in docker_containers.gpu_or_serving if not ranks and _tgi_sharded(c)]
        if sharded:
            return ok("all ranks run inside one container: " + ", ".join(
                f"{c.label} (TGI sharded: its launcher starts every shard as a process of this container)"
                for c in sharded), actual={c.label: "sharded" for c in sharded}, subjects=[c.label for c in sharded])
        # A container held open for `docker exec` (`sleep 8640000`) runs the engine the user starts inside it.
        held = [(c, n) for c in docker_containers.gpu_or_serving if not ranks
                and (not c.diagnostic_only or c.keep_alive) and (n := _gpus_held(c, gpus)) is not None and n >= 2]
        if held and len(container.gpu_prompt_hosts) > 1:
            # The paste shows GPUs in two hosts or pods: the ranks the user starts may sit in both.
            return unknown(f"{', '.join(f'{c.label} ({n} GPUs)' for c, n in held)} is held open for the work run "
                           "inside it, but the paste shows nvidia-smi run in "
                           f"{len(container.gpu_prompt_hosts)} hosts or pods "
                           f"({', '.join(container.gpu_prompt_hosts[:4])}): a job's ranks may span them, and whether "
                           "they share a node (and so need one IPC namespace) is not shown",
                           hint="say which node each pod runs on (`kubectl get pods -o wide`), or paste the job's "
                           "NCCL_DEBUG=INFO channel lines")
        if held:
            # Whatever ranks the engine starts, it starts them inside the container that holds the GPUs.
            return ok("all ranks run inside one container: " + ", ".join(f"{c.label} ({n} GPUs)" for c, n in held)
                      + ", started as no rank of a group: its engine's ranks cannot sit in another container",
                      actual={c.label: n for c, n in held}, subjects=[c.label for c, _ in held])
        # A launcher that starts every rank as its own child process (`launch_triton_server.py --world_size 4`),
        # typed on a host where no container is a rank of a group: its ranks share the IPC namespace it runs in,
        # the one container's or the host's (corpus 2092).
        starters = [c for c in (engine_commands.commands if engine_commands is not None else ())
                    if not ranks and (c.ranks_started_here or 0) > 1]
        if starters:
            return ok(f"{posixpath.basename(starters[0].argv[0])} starts its {starters[0].ranks_started_here} ranks "
                      f"itself, as its own child processes (“{starters[0].quoted}”), and no container shown is a rank "
                      "of a group: the ranks share the one IPC namespace the launcher runs in",
                      actual={"ranks": starters[0].ranks_started_here}, evidence=[starters[0].quoted])
        # Every GPU container on this host in the host's IPC namespace, and an engine of two ranks or more shown: the
        # ranks it starts here see the host's one /dev/shm whichever container holds them (corpus 663, 1115, 1579:
        # one `--ipc=host` container per node of a multi-node job; 790, a private namespace, stays not applicable).
        hosted = [c for c in docker_containers.gpu_or_serving if not c.diagnostic_only or c.keep_alive]
        world = parallelism.shown_world_size if parallelism is not None else None
        # The engine's NCCL communicator of two ranks or more in the log shows such an engine where no size is read
        # (corpus 1616: Xinference's vLLM split by pipeline stages, `rank 1 nranks 2`).
        logged = serving_log.comm_ranks if serving_log is not None else 0
        # Two GPU containers or more, all in the host's namespace, share it whatever ranks each holds (corpus 1754).
        if hosted and all(c.ipc_mode == "host" for c in hosted) \
                and ((world or 0) > 1 or ranks or logged > 1 or len(hosted) > 1):
            labels = [c.label for c in hosted]
            return ok(f"container(s) {', '.join(labels)} share the host's IPC namespace (`--ipc=host`): every rank "
                      + (f"of the engine (TP x PP = {world}) " if world and world > 1 else "")
                      + "that runs on this host sees its one /dev/shm, so no container boundary splits them",
                      actual={c.label: "host" for c in hosted}, subjects=labels)
        cut = [c.label for c in docker_containers.containers if c.excerpt]
        if cut and not docker_containers.gpu_or_serving:
            # A cut spec that shows no GPU or serving container (a Ray cluster's head, its GPU worker groups past the
            # cut): the containers where the engine's ranks run are in the part left out (corpus 1663).
            return unknown(f"the pasted spec of {', '.join(cut)} is cut and shows no container given a GPU or "
                           "running the engine: the containers where the engine's ranks run, and their IPC mode, may "
                           "be in the part left out",
                           hint="paste the whole spec (every worker group or service), or `docker inspect` of every "
                           "rank container")
        return not_applicable(f"{len(ranks)} container(s) on this host started as ranks of a group: nothing split")
    keys = {_ipc_key(c, by_name) for c in ranks}
    hostids = {c.env_value("NCCL_HOSTID") for c in ranks}
    labels = [c.label for c in ranks]
    if len(keys) > 1:
        return issue(f"{len(ranks)} rank containers on this host ({', '.join(labels)}) have {len(keys)} separate "
                     "IPC namespaces: NCCL sees different /dev/shm devices and disables P2P and SHM between them "
                     "(traffic goes over the network transport)",
                     actual={c.label: c.ipc_mode or "private" for c in ranks},
                     expected="one container, or a shared IPC namespace and the same NCCL_HOSTID", subjects=labels)
    if len(hostids) > 1 or None in hostids:
        host_net = all(c.network_mode == "host" for c in ranks)
        if not host_net:
            return issue(f"rank containers {', '.join(labels)} share IPC but not a hostname or NCCL_HOSTID: NCCL "
                         "may treat them as different nodes", actual={c.label: c.env_value("NCCL_HOSTID")
                                                                      for c in ranks},
                         expected="the same NCCL_HOSTID in every rank", subjects=labels)
    return ok(f"rank containers {', '.join(labels)} share one IPC namespace", actual=sorted(keys), subjects=labels)


def _tgi_sharded(c: DockerContainer) -> bool:
    """Whether a container runs Text Generation Inference told to shard its model (`SHARDED=true` in its environment,
    `--sharded true` in its arguments: text-generation-launcher reads either, and shards over every GPU it sees)."""
    if "text-generation-inference" not in c.image and not any("text-generation-launcher" in a for a in c.argv[:1]):
        return False
    said = c.flag("--sharded") or c.env_value("SHARDED") or ""
    return said.strip().lower() == "true"


def _gpus_held(c: DockerContainer, gpus: GpuInventory | None) -> int | None:
    """How many GPUs a container holds: its GPU ids or count, or for `--gpus all` the GPUs the sources show (at
    least that many); None where that is not shown."""
    if not c.gpu_requested:
        return None
    return c.gpu_count if c.gpu_count is not None else (gpus.count if gpus is not None else None)


# --- CTR-MEMLOCK -----------------------------------------------------------------------------

_MEMLOCK_FIX = Fix.of(
    step("Raise the engine's locked-memory limit (needs CAP_SYS_RESOURCE; affects new registrations)",
         "prlimit --pid <pid> --memlock=unlimited:unlimited", cost="restart", scope="container",
         changes="RLIMIT_MEMLOCK of the engine process",
         keep=(keep_line("--ulimit memlock=-1", "docker run", label="Docker",
                         text="compose `ulimits: {memlock: -1}`; Docker takes bytes"),
               keep_line("lxc.prlimit.memlock = unlimited", "the container's LXC config", label="LXC"),
               keep_line("LimitMEMLOCK=infinity", "the engine's systemd unit", label="systemd"),
               keep_line("* - memlock unlimited", "/etc/security/limits.d/", label="limits.d"))),
)
_MEMLOCK_FIX_K8S = Fix.of(
    step("Kubernetes cannot set memlock per pod: raise the container runtime's limit on the node, then restart "
         "the runtime", cost="restart", scope="container-host", changes="the runtime's default RLIMIT_MEMLOCK",
         keep=(keep_line("LimitMEMLOCK=infinity", "a containerd systemd drop-in", label="containerd"),
               keep_line('default_ulimits = ["memlock=-1:-1"]', "crio.conf", label="CRI-O"))),
)


@check(
    "CTR-MEMLOCK",
    title="RLIMIT_MEMLOCK too small (matters for RDMA only)",
    severity="medium",
    confidence="source-verified",
    fix=_MEMLOCK_FIX,
    references=(NCCL_RUNTIME_ISSUES, OPEN_GPU_MLOCK, "https://github.com/docker/cli/pull/7115",
                "https://github.com/systemd/systemd/commit/852b62507b22c0a986032a2c9fa9cc464a5b7bd2"),
)
def memlock(container: ContainerInfo | None = None, rdma: RdmaDevices | None = None,
            self_limits: ResourceLimits | None = None, serving_processes: ServingProcesses | None = None,
            docker_containers: DockerContainers | None = None, lxc_configs: LxcConfigs | None = None,
            nccl_nodes: NcclNodes | None = None, serving_log: ServingLog | None = None) -> Outcome:
    """Reads: `Max locked memory` in the engine's /proc/<pid>/limits (else the audit's own, or a
    pasted `ulimit -a`); Docker HostConfig.Ulimits; LXC `lxc.prlimit.memlock`; llama.cpp's `failed to mlock`
    warning; /sys/class/infiniband.

    Bad value: not unlimited and below several GiB (4 GiB here) **and** RDMA NICs present
    (/sys/class/infiniband non-empty: NCCL over IB/RoCE, GPUDirect RDMA, NIXL/Mooncake KV transfer).

    Why: RDMA memory registration (`ibv_reg_mr`) pins pages charged to RLIMIT_MEMLOCK; NCCL
    recommends `--ulimit memlock=-1` in containers. Defaults: 8 MiB on recent kernels/systemd,
    64 KiB on older systems; Docker containers inherit the daemon's limit.

    Traps: CUDA pinned host memory (`cudaHostAlloc`, `cudaHostRegister`, `pin_memory()`) is **not**
    limited by RLIMIT_MEMLOCK: the NVIDIA module pins with `pin_user_pages()` (os-mlock.c) and never
    reads RLIMIT_MEMLOCK or locked_vm. A 64 KiB limit on a single-node PCIe/NVLink host is not an
    issue. Docker's `--ulimit memlock=4096` means 4 KiB (bytes). Kubernetes cannot set it per pod.
    An NCCL log whose job moves nothing over RDMA (facts/serving_logs.no_rdma_traffic: NCCL's `Failed to open
    libibverbs` or `NET/IB : No device found`, NCCL_IB_DISABLE=1, every NET channel `via NET/Socket`), with no limit
    shown, registers no memory with an RDMA NIC: not applicable (corpus 1957); with a limit shown, the limit is not an
    issue.
    llama.cpp's `warning: failed to mlock N-byte buffer (after previously locking M bytes)` shows a limit below N + M
    bytes. llama.cpp (and ollama, which runs it) locks memory only to keep its weights resident and runs no NCCL,
    so a log of it alone, with no NCCL line, shows a limit that is not an issue where no RDMA device is shown
    (corpus 2023).
    Every GPU container shown holding CAP_IPC_LOCK (`--cap-add IPC_LOCK`, a pod's `securityContext.capabilities.add:
    ["IPC_LOCK"]`, ALL, or privileged), with no limit shown from outside those containers: ok, the kernel pins RDMA
    registrations past RLIMIT_MEMLOCK for a process with that capability (ib_umem_get), so the limit does not bind
    (corpus 2380).
    """
    observed: list[tuple[str, int | None, str]] = []  # (subject, bytes or None=unlimited, line)
    pair, source = _engine_limits(serving_processes, self_limits, MEMLOCK)
    if pair is not None:
        soft = _limit_bytes(pair[0])
        if soft != -1:
            observed.append((source, soft, f"Max locked memory: soft {pair[0]}, hard {pair[1]} ({source})"))
    for c in docker_containers.gpu_or_serving if docker_containers else ():
        u = c.ulimit("memlock")
        if u is not None:
            observed.append((c.label, None if u.soft < 0 else u.soft, f"{c.label}: Ulimits memlock soft {u.soft}"))
    for cfg in lxc_configs.configs if lxc_configs else ():
        value = cfg.prlimit("memlock")
        if value is not None and cfg.gpu_intent:
            soft_s = value.split(":", 1)[0]
            observed.append((f"lxc {cfg.name}", None if soft_s in ("unlimited", "-1") else
                             (int(soft_s) if soft_s.isdecimal() else None), f"{cfg.path}: lxc.prlimit.memlock = {value}"))
    failed = serving_log.mlock_failed if serving_log is not None else None
    if failed is not None and not observed:
        observed.append(("llama.cpp", failed[0], failed[1]))
    # NCCL's own word that the job moves nothing over RDMA (facts/serving_logs.no_rdma_traffic), with its line.
    no_rdma = nccl_nodes.rdma_unused(False) if nccl_nodes is not None else ""
    said = next(iter(nccl_nodes.no_rdma_lines), "") if nccl_nodes is not None else ""
    # Every GPU container shown holds CAP_IPC_LOCK (added, or privileged): the kernel pins RDMA registrations past
    # RLIMIT_MEMLOCK for it (ib_umem_get), so whatever limit it runs under does not bind (corpus 2380).
    gpu_boxes = docker_containers.gpu_or_serving if docker_containers else ()
    locked = [c.label for c in gpu_boxes if c.cap_ipc_lock]
    if locked and len(locked) == len(gpu_boxes) and all(o[0] in locked for o in observed) and not no_rdma:
        return ok(f"{', '.join(locked)} hold{'s' if len(locked) == 1 else ''} CAP_IPC_LOCK (an added capability or "
                  "privileged): the kernel lets RDMA memory registration pin pages past RLIMIT_MEMLOCK there, so "
                  "the locked-memory limit does not bind NCCL's IB transport",
                  actual={c.label: "CAP_IPC_LOCK" for c in gpu_boxes}, subjects=locked)
    if not observed and no_rdma:
        return not_applicable(f"{no_rdma}{f' ({said!r})' if said else ''}: "
                              "the job registers no memory with an RDMA NIC, the only use RLIMIT_MEMLOCK limits "
                              "(CUDA's pinned memory is not charged to it)")
    if not observed:
        return unknown("no memlock limit in this source", hint="run `ulimit -l` where the engine runs, or "
                       "`grep 'Max locked memory' /proc/<engine pid>/limits`")
    small = [o for o in observed if o[1] is not None and o[1] < MEMLOCK_ENOUGH]
    limited = [o for o in observed if o[1] is not None]
    lines = [o[2] for o in observed]
    rdma_present = rdma is not None and bool(rdma.names)
    # Absence only from a whole source of devices (`Sourced.complete`: the /sys/class/infiniband class); a paste
    # that lists no device (`ulimit -a` alone) or an excerpt (a pasted topo -m or NCCL log) says nothing of RDMA NICs.
    rdma_absent = rdma is not None and rdma.complete and not rdma.names
    # "Set memlock to unlimited" is the myth: a limit (small or large) is a key negative where no RDMA is
    # used; unlimited, or a large limit where RDMA registers memory, is simply fine.
    if not limited or (not small and rdma_present):
        return ok("memlock is unlimited or large: " + "; ".join(lines), actual=lines[0])
    too_small = bool(small)
    if not small:
        small = limited
    subjects = [o[0] for o in small]
    desc = ", ".join(f"{_size(o[1])} ({o[0]})" for o in small)
    if failed is not None and observed[0][2] == failed[1]:
        desc = f"below {_size(failed[0])} (llama.cpp could not lock that much)"
    if rdma_present and rdma is not None:
        k8s = container is not None and container.kind == "kubernetes"
        return issue(f"RLIMIT_MEMLOCK is {desc} and RDMA devices are present ({', '.join(rdma.names)}): RDMA "
                     "memory registration for NCCL over IB/RoCE, GPUDirect RDMA or KV transfer will fail or "
                     "fall back", actual=desc, expected="unlimited", subjects=subjects, evidence=lines,
                     fix=_MEMLOCK_FIX_K8S if k8s else _MEMLOCK_FIX)
    # The engine of the log runs no NCCL and registers no memory with an RDMA NIC (llama.cpp, ollama).
    engine_alone = ""
    if not no_rdma and serving_log is not None and serving_log.engine in ("llamacpp", "ollama") \
            and not serving_log.nccl_version and not serving_log.channels:
        engine_alone = no_rdma = "llama.cpp" if serving_log.engine == "llamacpp" else "ollama"
    if too_small and not rdma_absent and not (no_rdma and not rdma_present):
        return unknown(f"RLIMIT_MEMLOCK is {desc}, which matters only for RDMA memory registration, and this "
                       "source does not show whether the host has RDMA NICs"
                       f"{' (its device list is an excerpt)' if rdma is not None else ''}",
                       hint="ls /sys/class/infiniband")
    where = "no RDMA device (/sys/class/infiniband is empty)" if rdma_absent else \
        f"the engine shown is {engine_alone}, which runs no NCCL and registers no memory with an RDMA NIC" \
        if engine_alone else \
        f"the NCCL job moves nothing over RDMA ({no_rdma})" if no_rdma else "no RDMA device is visible in this source"
    return not_an_issue(
        f"RLIMIT_MEMLOCK is {desc}, but {where}: CUDA pinned host memory is not limited by RLIMIT_MEMLOCK "
        "(the NVIDIA kernel module pins with pin_user_pages() and never reads RLIMIT_MEMLOCK, "
        "kernel-open/nvidia/os-mlock.c), so single-node serving over PCIe/NVLink is unaffected. It matters "
        "only for RDMA (multi-node NCCL over IB/RoCE, GPUDirect RDMA, NIXL/Mooncake): then set "
        "`--ulimit memlock=-1` / LimitMEMLOCK=infinity",
        actual=desc, expected="unlimited only where RDMA is used", subjects=subjects, evidence=lines)


# --- CTR-STACK-ULIMIT ------------------------------------------------------------------------


@check(
    "CTR-STACK-ULIMIT",
    title="Stack ulimit (`--ulimit stack=67108864`): information only",
    severity="low",
    confidence="unproven",
    fix=advice("Set the stack limit in the container's launch", cost="restart", scope="container",
                   keep=keep_line("--ulimit stack=67108864", "docker run", label="Docker")),
    references=("https://www.mintlify.com/sgl-project/sglang/deployment/docker",),
)
def stack_ulimit(container: ContainerInfo | None = None, self_limits: ResourceLimits | None = None,
                 serving_processes: ServingProcesses | None = None,
                 docker_containers: DockerContainers | None = None) -> Outcome:
    """Reads: `Max stack size` in the engine's /proc/<pid>/limits (else the audit's own, or
    `ulimit -s` from a pasted `ulimit -a`); Docker HostConfig.Ulimits `stack`.

    Bad value: none known for inference: reported as information only.

    Why: NGC container banners and SGLang's Docker instructions recommend
    `--ulimit memlock=-1 --ulimit stack=67108864`; no published inference slowdown comes from the
    default 8 MiB stack.

    Traps: do not rank this as a fix; the effect is unproven.
    """
    if container is None or container.in_container:
        # Where the paste does not say whether it came from a container, its limits are still the shell's.
        pair, source = _engine_limits(serving_processes, self_limits, STACK)
        if pair is None:
            return unknown("the stack limit is not in this source", hint="run `ulimit -s` in the container")
        soft = _limit_bytes(pair[0])
        shown = "unlimited" if soft is None else _size(soft) if soft >= 0 else pair[0]
        return ok(f"stack limit {shown} ({source}); NGC/SGLang suggest 64 MiB, but no published evidence shows an "
                  "inference effect (unproven)", actual=shown)
    if docker_containers is None or not docker_containers.gpu_or_serving:
        return not_applicable("not in a container and no GPU/serving containers to read")
    values = {}
    for c in docker_containers.gpu_or_serving:
        u = c.ulimit("stack")
        values[c.label] = "daemon default" if u is None else ("unlimited" if u.soft < 0 else _size(u.soft))
    return ok("stack ulimit per container: " + ", ".join(f"{k}: {v}" for k, v in values.items())
              + " (information only; effect unproven)", actual=values)


# --- CTR-SECCOMP-NUMA ------------------------------------------------------------------------


def _security(procs: ServingProcesses | None, own: ProcessSecurity | None) -> tuple[int | None, bool | None, str]:
    """(seccomp mode, has CAP_SYS_NICE, source) from the engine's status, else the audit's."""
    if procs is not None:
        for proc in procs.processes:
            cap = proc.status.get("CapEff", "")
            sec = proc.status.get("Seccomp", "")
            if cap or sec:
                has = bool(int(cap, 16) >> CAP_SYS_NICE & 1) if cap and all(
                    ch in "0123456789abcdefABCDEF" for ch in cap) else None
                return (int(sec) if sec.isdecimal() else None), has, f"engine pid {proc.pid}"
    if own is not None:
        return own.seccomp, own.has_cap(CAP_SYS_NICE), "the audit's own process"
    return None, None, ""


@check(
    "CTR-SECCOMP-NUMA",
    title="Docker seccomp blocks NUMA syscalls (no CAP_SYS_NICE)",
    severity="low",
    confidence="source-verified",
    fix=Fix.of(step("Recreate the container with CAP_SYS_NICE", cost="restart", scope="container",
                    takes="recreate the container",
                    keep=(keep_line("--cap-add SYS_NICE", "docker run", label="Docker",
                                    text="compose `cap_add: [SYS_NICE]`"),
                          keep_line('securityContext.capabilities.add: ["SYS_NICE"]', "the pod spec",
                                    label="Kubernetes")))),
    references=(NCCL_CUDAWRAP,),
)
def seccomp_numa(container: ContainerInfo, process_security: ProcessSecurity | None = None,
                 serving_processes: ServingProcesses | None = None, gpu_devices: GpuDeviceAccess | None = None,
                 docker_containers: DockerContainers | None = None) -> Outcome:
    """Reads: inside a container `Seccomp` and `CapEff` (bit 23, CAP_SYS_NICE) in the engine's or the
    audit's /proc/<pid>/status and the /dev/nvidiaN nodes; on a Docker host HostConfig.CapAdd,
    SecurityOpt and Privileged of the GPU containers.

    Bad value: a seccomp filter without CAP_SYS_NICE where several GPUs talk through NCCL (or
    `numactl`/`mbind` is used); NCCL's INFO line "cuMem host allocations do not appear to be
    working; falling back to a /dev/shm/ based implementation".

    Why: Docker's default seccomp profile allows get_mempolicy/mbind/set_mempolicy only with
    CAP_SYS_NICE; NCCL's cudawrap.cc says Docker "is known to disable get_mempolicy" and names
    `--cap-add SYS_NICE` as the fix. NCCL then falls back to /dev/shm (CTR-SHM-SIZE matters) and
    NUMA-local host buffers are not guaranteed.

    Traps: single-GPU serving is unaffected; the throughput impact is not measured publicly
    (severity low). `seccomp=unconfined` or `--privileged` also lift it.
    A container that only runs a GPU check or a wait (DockerContainer.diagnostic_only: `nvidia-smi`, a bare OS
    image) starts no NCCL peers: not an issue. So is one whose pasted spec is cut before any GPU request (its
    request may be in the part left out) and that only runs such a command (`sleep 100000`, corpus 1837).
    """
    if container.in_container:
        if container.kind not in _DOCKERISH:
            return not_applicable(f"{container.kind} container: no Docker seccomp profile")
        seccomp, nice, source = _security(serving_processes, process_security)
        if seccomp is None and nice is None:
            return unknown("seccomp mode and capabilities are not in this source",
                           hint="run `grep -E 'Seccomp|CapEff' /proc/self/status` in the container")
        if seccomp == 0:
            return ok(f"no seccomp filter ({source}): NUMA syscalls are allowed", actual="Seccomp: 0")
        if nice:
            return ok(f"CAP_SYS_NICE is granted ({source}): the default profile allows the NUMA syscalls",
                      actual="CAP_SYS_NICE")
        gpus = _gpu_count(gpu_devices)
        if gpus == 1:
            return not_an_issue("no CAP_SYS_NICE under a seccomp filter, but one GPU: NCCL has no peers here",
                                actual="seccomp filter, no CAP_SYS_NICE")
        if nice is None:
            return unknown(f"seccomp filter on ({source}); capabilities not readable",
                           hint="`grep CapEff /proc/self/status` in the container")
        return issue("seccomp filter on and no CAP_SYS_NICE: Docker's default profile blocks get_mempolicy/mbind, "
                     "so NCCL's cuMem host allocations fall back to /dev/shm and NUMA placement fails (throughput "
                     "impact not measured publicly)", actual="seccomp filter, no CAP_SYS_NICE",
                     expected="--cap-add SYS_NICE", subjects=(source,))
    if docker_containers is None:
        return not_applicable("not in a container and no Docker containers to read")
    gpu = [c for c in docker_containers.containers if c.gpu_requested]
    cut = [c for c in docker_containers.containers if c.origin and c.excerpt]
    if not gpu and cut and all(c.diagnostic_only for c in docker_containers.containers):
        # A cut spec may hold its GPU request in the part left out; what it runs is shown, and starts no NCCL peers.
        labels = list(dict.fromkeys(c.label for c in cut))
        return not_an_issue(f"the pasted spec of {', '.join(labels)} is cut, so a GPU request may be in the part left "
                            "out, but it only runs a GPU check or a wait ("
                            + "; ".join(" ".join(c.argv)[:60] or c.image for c in cut[:3])
                            + "), not an engine: no NCCL peers whose NUMA calls seccomp could block",
                            actual={c.label: " ".join(c.argv) or c.image for c in cut})
    if not gpu:
        return not_applicable("no Docker container with GPUs on this host")
    unlifted = [c for c in gpu if not c.cap_sys_nice and not c.seccomp_unconfined and c.gpu_count != 1]
    bad = [c for c in unlifted if not c.diagnostic_only]
    if unlifted and not bad:
        # A GPU test that exits (`nvidia-smi`, a bare OS image's shell) starts no NCCL peers to place.
        labels = list(dict.fromkeys(c.label for c in unlifted))
        return not_an_issue(f"no SYS_NICE in GPU container{'s' if len(labels) > 1 else ''} {', '.join(labels)}, "
                            "but it only runs a GPU check or a wait, not an engine: no NCCL peers to place",
                            actual={c.label: "CapAdd " + (", ".join(c.cap_add) or "none") for c in unlifted},
                            expected="CapAdd includes SYS_NICE where an engine runs on several GPUs")
    if bad:
        labels = list(dict.fromkeys(c.label for c in bad))  # one container named by two pasted specs: once
        return issue(f"no SYS_NICE in GPU container{'s' if len(labels) > 1 else ''} "
                     f"{', '.join(labels)} under the default seccomp profile: NCCL falls back to "
                     "/dev/shm (impact not measured publicly)",
                     actual={c.label: "CapAdd " + (", ".join(c.cap_add) or "none") for c in bad},
                     expected="CapAdd includes SYS_NICE",
                     subjects=labels)
    return ok("GPU containers have SYS_NICE, no seccomp filter, or one GPU: "
              + ", ".join(c.label for c in gpu), subjects=[c.label for c in gpu])


# --- CTR-GPU-ACCESS --------------------------------------------------------------------------

_CTK_FIX = Fix.of(
    step("Configure the NVIDIA container runtime for Docker and restart Docker",
         "nvidia-ctk runtime configure --runtime=docker", "systemctl restart docker", cost="restart",
         scope="container-host", changes="/etc/docker/daemon.json"),
    step("Recreate the container with the GPUs", cost="restart", scope="container", takes="recreate the container",
         keep=(keep_line("--gpus all", "docker run", label="Docker",
                         text="or `--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all`, or CDI `--device nvidia.com/gpu=all`"),
               keep_text("NVIDIA device plugin / GPU Operator", label="Kubernetes"),
               keep_cmd(cmd("nvidia-ctk config --set nvidia-container-cli.no-cgroups=true --in-place"),
                        label="Docker in unprivileged LXC"))),
)


_CTK_SHARPEN = Sharpen("install the NVIDIA Container Toolkit, run `nvidia-ctk runtime configure --runtime=docker` "
                       "and restart Docker")
# A container shown asking for GPUs: the runtime may have given them and lost them since.
_GIVEN_GPUS_SHARPEN = Sharpen(
    "the container asks for GPUs: recreate it once the host's driver is whole (`nvidia-modprobe -u -c=0` creates a "
    "missing /dev/nvidia-uvm; with CDI, `nvidia-ctk cdi generate` refreshes the spec); if Docker refuses the request, "
    "install the NVIDIA Container Toolkit and run `nvidia-ctk runtime configure --runtime=docker`",
    shows=(IN_GPU_CONTAINER, IN_CONTAINER))
# A container the source shows, its GPU request not shown: a line of the program in it speaks for the container.
_IN_CONTAINER_SHARPEN = replace(_CTK_SHARPEN, shows=(IN_CONTAINER,))
# `docker run --gpus 0` asks for none (a count): the runtime is set up, the request names the wrong thing (corpus 1460).
_ZERO_GPUS_FIX = Fix.of(
    step("Recreate the container naming the GPU it should get (a bare number after --gpus is a count, not an index)",
         cost="restart", scope="container", takes="recreate the container",
         keep=keep_line("--gpus '\"device=0\"'", "docker run", label="Docker",
                        text="or a count, `--gpus 1`; compose: `device_ids: ['0']` under deploy.resources")),
)


# What the GPU Operator's pod not running leaves undone (facts/k8s_pods.PodState.role).
_PROVIDER_DOWN = {
    "driver": "until it stays up the node's driver is not loaded, so no pod on it is given a GPU",
    "toolkit": "until it stays up the node's driver runtime hook is not configured, so no pod on it is given a GPU",
    "validator": "the operator's own proof that pods on the node get a working GPU (its driver, toolkit, CUDA or "
                 "device plugin step; the failing init container names which) does not pass",
}


def _provider_loop_fix(pod: str, row: str = "") -> Fix:
    """The GPU Operator's driver or toolkit pod in a restart loop (corpus 1457): its own log says why it exits (a
    kernel the driver cannot be built for, a toolkit that cannot reach the runtime's config); configuring Docker's
    runtime by hand on the node is not the fix, the operator owns it."""
    words = row.split()
    # `kubectl get pods -A` puts the namespace before the pod's name.
    at = words.index(pod) if pod in words else -1
    namespace = bash_word(words[at - 1]) if at > 0 else "<namespace>"
    return Fix.of(step("Read why the operator's pod exits, from the run before its last restart, and fix that cause "
                       "(a driver container that cannot build the driver needs a kernel its driver supports)",
                       cmd(f"kubectl logs -n {namespace} {bash_word(pod)} --all-containers --previous"),
                       cost="restart", scope="container-host", takes="read its log, then fix what it names"))


@check(
    "CTR-GPU-ACCESS",
    title="GPUs, device nodes or driver libraries not correctly exposed to the container",
    severity="high",
    confidence="documented",
    applies_to="nvidia-gpu",
    fix=_CTK_FIX,
    references=(CTK_CDI, "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html",
                "https://github.com/vllm-project/vllm/blob/main/vllm/env_override.py", CTK_CAPABILITIES),
    sharpen=_CTK_SHARPEN,
)
def gpu_access(container: ContainerInfo | None = None, gpu_devices: GpuDeviceAccess | None = None,
               gpus: GpuInventory | None = None, docker_containers: DockerContainers | None = None,
               serving_log: ServingLog | None = None, nccl_test_runs: NcclTestRuns | None = None,
               collect_env: CollectEnv | None = None, k8s_pods: K8sPods | None = None,
               cuda_ran: CudaRan | None = None, nvidia: NvidiaGpus | None = None,
               engine_commands: EngineCommands | None = None, k8s_nodes: K8sNodes | None = None,
               trouble: Trouble | None = None, nvidia_services: NvidiaServices | None = None,
               virtualization: Virtualization | None = None, cuda_runtime: CudaRuntime | None = None,
               nvidia_driver: NvidiaDriver | None = None) -> Outcome:
    """Reads: inside a container `ls /dev/nvidia*`, NVIDIA_VISIBLE_DEVICES and
    NVIDIA_DRIVER_CAPABILITIES (engine's or audit's environ), /proc/driver/nvidia/version against
    the version libnvidia-ml.so.1 resolves to; on a Docker host the serving containers'
    DeviceRequests, Runtime and Devices.

    Bad value: NVIDIA_VISIBLE_DEVICES set but no /dev/nvidiaN (the runtime did not inject GPUs);
    /dev/nvidiactl or /dev/nvidia-uvm missing (CUDA init fails); NVIDIA_DRIVER_CAPABILITIES without
    `compute` and `utility`; user-space driver library != kernel module (NVML "Driver/library
    version mismatch"); a serving container started without any GPU request (an issue where a whole `docker run`
    tells its program to use CUDA: `--device cuda`, or a CUDA_VISIBLE_DEVICES of GPU indices or UUIDs; a spec that
    names no such intent leaves it unknown, since nvidia may be the daemon's default runtime); a container given GPUs
    whose CUDA_VISIBLE_DEVICES starts with an entry CUDA cannot parse (`all`: CUDA keeps only the devices listed before
    the first invalid entry, so none); a serving container whose
    engine asks for more GPUs (TP x PP) than its GPU request or CUDA_VISIBLE_DEVICES lets it see, with no
    other node shown joining (no --nnodes, node rank or Ray); a container whose CUDA_VISIBLE_DEVICES names an
    index at or past the number of GPUs it is given (the runtime numbers them from 0 inside); a Kubernetes container that sets
    NVIDIA_VISIBLE_DEVICES by hand beside its nvidia.com/gpu request (the toolkit honours the variable, so
    the container may reach GPUs the device plugin did not allocate to it).

    Why: the NVIDIA Container Toolkit injects device nodes and driver libraries (hook or CDI); a
    partial set fails CUDA or silently changes the GPUs TP is placed on.

    A symptom line of facts/symptoms.py (Docker's "could not select device driver ... with
    capabilities: [[gpu]]", "unknown or invalid runtime name: nvidia", "nvidia-container-cli:
    initialization error", "nvidia-container-cli: detection error: nvml error", "Failed to initialize
    NVML: Unknown Error", the device plugin's "could not load NVML library" or "Incompatible strategy detected
    auto", a CDI GPU device the runtime cannot
    resolve: Podman's or Docker's "unresolvable CDI devices nvidia.com/gpu=all"; the Kubernetes scheduler's "Insufficient
    nvidia.com/gpu"; GPU feature discovery's node label `nvidia.com/gpu.count` 0; ollama's GPU probe finding none on a
    line `docker compose` prefixes, or in a container the source shows: a spec, or the user's words `Ollama container
    logs`, facts/container.STATED_CONTAINER_WORDS) proves the issue on its own, quoted, over a GPU request shown above
    it.
    So is an image's own entrypoint that sees the NVIDIA GPU but finds no nvidia-smi in its container (LocalAI's
    All-in-One images: `NVIDIA GPU detected, but nvidia-smi is not installed`): the NVIDIA runtime, which mounts it
    with the driver's libraries, did not run for the container. So is the kubelet's event for the GPU Operator's
    driver pod whose startup probe gets nvidia-smi's own failure (`Startup probe failed: No devices were found`): the
    driver reaches no GPU, and no pod on the node is handed one.
    Where the user's label before an nvidia-smi says it ran in a container (`nvidia-smi from inside the ollama
    container:`, facts/container.STATED_SMI_INSIDE), that nvidia-smi counts as typed at the container's own prompt.
    The stale CDI spec's "failed to stat CDI host device" and the GPU Operator's `nvidia-container-cli.real` hook
    failure are such lines too, and so is a GPU operator driver container's `Could not resolve Linux kernel version`:
    the container exits before it installs the node's driver (a restart loop), so no pod on the node gets a GPU.
    So is NVML's "Driver/library version mismatch" in a container the source shows: the image's own driver libraries
    shadow the host's (on a bare host the same line is a driver updated without a reboot, another fault).
    A piece of a pod spec without its image is the engine's container where its args set TP x PP (`--tensor-parallel-size`)
    within its GPU request: ok over those GPUs. A piece of a pod spec that shows a serving container without a GPU
    request (a `containers:` list pasted with its image and args only) does not show its `resources:`: unknown, not
    a container started without GPUs.
    A whole pod spec that asks for no nvidia.com/gpu, with nvidia-smi run in that pod by `kubectl exec` (`k exec`, the
    line in Markdown bold too) listing GPUs, shows the GPU reaching the container outside the device plugin's
    allocation (the image's NVIDIA_VISIBLE_DEVICES=all under nvidia as the node's default runtime): an issue.
    A `docker run --gpus 0` asks for a count of zero GPUs, not GPU 0 (Docker's CLI reads a bare number as a count):
    the runtime is asked for no device and the image's own NVIDIA_VISIBLE_DEVICES decides (every GPU in a CUDA image):
    an issue, the GPU named with `--gpus '"device=0"'`. The runtime hook's failure to set up a requested GPU
    (`nvidia-container-cli: mount error:`, `container error:`, `ldcache error:`, `device error:`) is a symptom line
    too: the request shown above it is no proof of access. So are the hook's detection step failing in the driver's
    service (`detection error: driver error` / `driver rpc error`), runc finding no devices cgroup mounted
    (`mountpoint for devices not found`) and a missing `nvidia-container-runtime-hook`. So is a container's start
    failing with `exec: "nvidia-smi": executable file not found in $PATH`: the NVIDIA runtime mounts nvidia-smi with
    the driver's libraries, so the driver was not handed to it (nvidia-docker 1's volume, the toolkit's hook).
    A serving container whose image is a ROCm (AMD) build (`ollama/ollama:0.4.0-rc5-rocm`, `rocm/vllm`) given the
    NVIDIA GPUs by its request: the GPUs reach it, and its programs carry no CUDA code to use them: not an issue of
    the container's access (the image is the fault).
    A `docker run` of nvidia-smi is a test of GPU access, judged by its answer: where the paste shows its output and
    that output names no GPU (cut before its first GPU row, or an error in its place), its request is no evidence:
    unknown, not ok.
    A pod its status shows not scheduled (PodScheduled False, or Pending with no node: `kubectl describe pod`) holds no
    GPU yet: its request is no evidence of access, and why it waits is in its events.
    A spec's GPU request with the user's words that the workload runs on the CPU (`using CPU instead of GPU`, `the
    model not even being loaded into VRAM`, facts/trouble.ON_CPU), and nothing from the container's side (no engine
    log, nothing typed inside it, no GPU listing), is unknown: the request is what those words put in question (corpus
    1809, 2157). A GPU the user's words name (an issue form's `GPU:` row) is no listing.
    A pasted spec's GPU request (a `docker run`, compose, a pod, a `docker inspect` excerpt) with nothing from the
    container's side (no engine log, nothing typed inside it, no program's CUDA at work there) and no GPU listing is
    unknown: a request shows what is asked, not what the runtime handed over (issue 28, the owner's decision of
    2026-12-07; corpus 1989, 2201, 2743, 2746, 2818, 2872, 2880: both readers). A command typed inside the container
    counts by its answer: nvidia-smi by a GPU listing or a failure line, with its output cut away nothing (corpus 329);
    `nvidia-smi --version` by the loaded driver's version it reads there (corpus 229); an engine by its lines of CUDA at
    work, not by a failure before any CUDA call (corpus 2874: a module not found). An NVIDIA image's entrypoint that
    read the host driver (the NGC minor-version WARNING's `Using driver version 510.47.03`, corpus 2086), or whose
    start banner (an NGC release's, the CUDA image's `== CUDA ==`) runs to the program's own lines without its
    `WARNING: The NVIDIA Driver was not detected` (printed where libcuda or /dev/nvidiactl is missing), shows the
    driver reached the container: ok (corpus 2815, 2882); a banner cut, or followed only by a command line a wrapper
    echoes, shows no answer (corpus 2146, 2872, 2880). So does vLLM's dtype check naming the GPU's compute capability
    it read there (`Your Quadro RTX 6000 GPU has compute capability 7.5`, corpus 2871). A GPU
    listing shown beside it
    (nvidia-smi, which users run inside the container to check) leaves the request ok. A whole `docker inspect` of a
    container the daemon created keeps its ok: the daemon set its requests up at its start, and a request the runtime
    cannot meet fails the start.
    A request for every GPU (`--gpus all`, CDI `--device nvidia.com/gpu=all`) is judged over the GPUs the source lists.
    A `docker inspect` excerpt leaves the runtime, environment and GPU requests it cuts away unknown; one that shows a
    container it names with its DeviceRequests whole, to the list's closing `]` (`docker inspect ollama | jq
    '.[0].HostConfig.DeviceRequests'`, corpus 2130), is judged on those requests as a whole spec is.
    LocalAI's All-in-One entrypoint's `NVIDIA GPU detected` (facts/docker.AIO_SMI_RAN) is followed by the nvidia-smi
    it runs inside its container: that nvidia-smi counts as typed there, and its table, cut in its header too, means
    NVML opened a GPU there (it prints `No devices were found` and no table otherwise): ok (corpus 1953).
    Where the only GPU listing shown is cut before its first GPU (nvidia-smi cut in its header) and nothing from the
    container's side is shown (no engine log, nothing typed inside it), the request hands over no GPU the source shows:
    unknown, not ok (corpus 1755).
    CUDA failing to start with "unknown error" (llama.cpp's `ggml_cuda_init`, PyTorch's `CUDA initialization`,
    `cuInit` CUDA_ERROR_UNKNOWN) proves it only where the source shows a container given GPUs (a spec's GPU
    request, the runtime's nodes inside it): on a bare host the same line is another fault. So does CUDA's MPS client
    failing to connect (805: `MPS client failed to connect to the MPS control daemon or the MPS server`): the
    container is given the GPU but not what a client of the host's MPS needs, the daemon's pipe directory and the
    host's IPC namespace (`--ipc=host`; corpus 2730); on a bare host it is the daemon's own failure.
    An nccl-tests run that fails with 'invalid device ordinal' after asking one host for more GPUs (processes x
    `-t` x `-g`) than the source shows it has, or than any one system holds where no count is shown, asked for devices
    that do not exist: not an issue where the container's own state is not shown (NcclTestRuns.asked_beyond).
    A collect_env where torch warns `Can't initialize NVML` while `Is CUDA available: True` shows the driver's CUDA
    library handed over without its NVML library: the toolkit's `compute` capability without `utility`, or an image's
    own libnvidia-ml. An issue, of field-report confidence where the source does not show the container (a bare
    host's driver installs NVML beside CUDA). In a container the source shows (a collect_env run by `docker exec`), the
    warning is the issue whatever the report shows of CUDA, its lines cut away too (corpus 2212).
    Inside a container whose device nodes and variables are not shown, nvidia-smi typed at the container's own prompt
    (`root@802f556c99c8:/# nvidia-smi`, facts/container.ContainerInfo.ran_inside) listing the GPUs shows the device
    nodes and the driver's NVML library reached it: ok over those GPUs. Its topology matrices typed there (`nvidia-smi
    topo -m`, `topo -mp`, `topo -p2p n`: a row for every GPU NVML opens) list the GPUs too (corpus 2355, 497, 1194).
    So does the nvidia-smi of a
    `text-generation-launcher --env` report whose `Docker label: sha-...` names the TGI image its launcher runs in
    (facts/serving_logs.TGI_IMAGE_LABEL; `N/A` outside it). Apptainer (Singularity) is such a container:
    the shell `singularity shell` opens there prompts `Singularity>` (`Apptainer>`), and `singularity exec --nv IMAGE
    nvidia-smi` runs nvidia-smi in the image's container as `docker exec` does.
    ollama starting its model's runner from a CPU library (`runners/cpu_avx2/ollama_llama_server`) leaves the GPU
    request shown for its container unproven: unknown, the line quoted (facts/symptoms.py ollama-cpu-runner).
    Inside a container whose device nodes and variables are not shown, llama.cpp's CUDA backend at work there (its
    `using device CUDA0 (...) - N MiB free` line, a `CUDA0 model buffer size` line, its `ggml_cuda_init` device list)
    shows the GPUs and the driver's CUDA library reached it: ok over those GPUs.
    Inside a container whose device nodes and variables are not shown, an nccl-tests device list (`Rank 0 Pid 12414 on
    51e6e7896958 device 0 [0x1a] Tesla V100-SXM3-32GB`) from a run that did not fail choosing its GPUs shows its ranks
    opened those devices there: ok over them.
    So does NCCL's P2P refusal there naming both devices by bus id (`NCCL INFO Could not enable P2P between dev
    1(=1b000) and dev 0(=1a000)`, corpus 2114): CUDA answered for both.
    So does a rank's NCCL line of its ring, channel or tree set-up there (`host:45679:45951 [1] NCCL INFO Ring`,
    corpus 1754), of its CPU affinity for the GPU (`NCCL INFO Setting affinity for GPU 1 to fff000`, corpus 1801), of
    its topology search failing to resolve the GPU's sysfs path (`NCCL WARN Could not find real path of
    /sys/class/pci_bus/0000:03/../../0000:03:00.0`, WSL 2's missing PCI tree, corpus 2385) or
    of its communicator's start naming its NVML device (`cudaDev 0 nvmlDev 0 busId 48000 ... - Init START`, corpus
    1947): NCCL read its CUDA device's bus id through CUDA first. A whole spec with no GPU request whose
    environment names GPUs (`--env NVIDIA_VISIBLE_DEVICES=0,1`, the nvidia-docker 2 way under nvidia as the default
    runtime) is a GPU container by intent, judged as one without a request.
    In a container the source shows (the audit inside one, or a pasted spec of the serving container or of one given
    GPUs) whose device nodes and variables are not shown, or whose spec shows no GPU request, a program's CUDA at work (facts/cuda_ran.py:
    vLLM's metrics line generating out of a GPU KV cache in use, torch's out-of-memory message, TensorRT-LLM's ledger,
    Triton's CUDA memory pool created on a device),
    with no line of CUDA refusing to start, shows the GPU and the driver's CUDA library reached it: ok. So does the
    engine's command typed at the container's own prompt (`root@a49f9772e6b2:~# lmdeploy serve ...`) whose log shows a
    kernel launch CUDA refused only for want of the GPU's code (`no kernel image is available for execution on the
    device`, 209: the runtime had its context on the GPU), corpus 2083. So does a collect_env whose torch initialised
    CUDA (`Is CUDA available: True`) where its own lines put its userland over another distribution family's kernel
    (`OS: Ubuntu 18.04.3 LTS` on `Linux-5.10.0-60.70.0.94.oe2203.bclinux.x86_64`, corpus 2658): a machine or a VM boots
    a kernel of its own distribution, so the report ran in a container over the host's kernel.
    A source that shows only another vendor's GPUs and no NVIDIA driver (an issue form's `GPU: AMD`) has no NVIDIA GPU
    to expose: not applicable (facts/applicability.py, subject nvidia-gpu).
    Where the container's device nodes and variables are not shown, an `nvidia-smi -L` that lists GPUs shows NVML
    reached them where it ran: ok, not on a Windows host with no container shown (corpus 2497: a Windows program's
    nvidia-smi ran in none) (a failure line the log shows, such as another run's `Failed to initialize NVML`,
    still proves the issue). So does Triton's metrics start-up finding GPUs through NVML (`found 2 GPUs supporting
    NVML metrics`) in a container the source shows (from inside, or a pasted spec piece of the serving container,
    corpus 1817), over the GPUs it counts. The NGC image's driver check (`This
    container was built for NVIDIA Driver Release ...`, `... compatibility mode is UNAVAILABLE`) shows that container:
    its entrypoint prints it only inside the image.
    A Triton server whose model configs shown put instances on a GPU number (instance_group `gpus: [ 6 ]`) at or past
    the count of devices its own CUDA_VISIBLE_DEVICES leaves it (`CUDA_VISIBLE_DEVICES=6,7`: CUDA numbers those two 0
    and 1) names a device that does not exist for the server: its models fail to load for the config, not for GPUs
    withheld from the container (NVML's list of every GPU, Triton's metrics lines, ignores the variable): not an issue
    where the container's own state is not shown (server#1567, corpus 1493).
    CUDA refusing to start for the driver's age (cudaErrorInsufficientDriver, 35: `CUDA driver version is insufficient
    for CUDA runtime version`) where the image's own start-up check found the driver inside the container (a Jetson's
    `NVIDIA Tegra driver detected.`, the NGC check reading the driver's version) is not an issue: the driver reached
    the container and the image's CUDA is newer than it (DRV-CUDA-COMPAT; triton-inference-server/server#6373,
    corpus 1828). The refusal alone decides nothing: cudart returns the same 35 where no driver library reached it.
    CUDA's forward-compatibility refusal (804: `forward compatibility was attempted on non supported HW`) rules the check
    out only in a container the source shows (a pasted pod listing too: Kubernetes runs its work in containers, corpus
    1173); with none shown, whether the compat library is an image's is not shown: unknown (corpus 2463).

    Traps: an unset NVIDIA_DRIVER_CAPABILITIES means `utility,compute` (the toolkit's default).
    Fewer GPUs than on the host's PCI bus is often intended (`--gpus '"device=0,1"'`): reported,
    not flagged. Inside LXC the version match is CTR-LXC-DEVICES's. `cuda-compat` libraries on
    GeForce cards cause Error 803 (not detected here).
    An engine that runs as a Windows program or service (facts/platform.WINDOWS_LINES: ollama's `C:\\...` paths,
    `OS: Windows 11`, llama.cpp's loader opening a model from `C:\\...\\x.gguf`, ollama's lines from its Windows-only
    Go sources, `source=gpu_windows.go`, a traceback's Python file on a drive), with no container shown, is not in a
    container: not applicable (facts/applicability.LINUX_ONLY). So is an engine a systemd unit's ExecStart runs, or
    `ollama serve` typed at a prompt that names no container, or pasted alone above its log with no prompt shown
    (corpus 2082), or the user's words that run it (`I run **ollama
    serve**`) or ollama's Linux release binary by its path (`./ollama-linux-amd64`), or the user's first-person words
    that they ran it on bare metal (`I've tried baremetal and it works on:`, corpus 2357, in a line that names no
    container) (facts/container.py): a program of
    the host. So is a command of llamafile, llama.cpp built into one executable its project ships with no container
    image (`llamafile -m ... --gpu nvidia`, corpus 2217), where no prompt or command names a container, and so is a
    llamafile whose log links its GPU module from a login user's home (`dynamically linking
    /home/yo/.llamafile/ggml-cuda.so`, corpus 2374; a container's user is root). So is a command typed at a prompt of a user other than root whose prefix names a Python environment
    (`(deit92) [user@gpuhost deit]$`, corpus 2087), where neither the prefix nor the host names a container and no
    command typed names one: a container's shell runs as root. So is a command typed at a login user's `user@host`
    prompt with no prefix (`kgk2@bock:~$ nvidia-smi`, corpus 2466) where no prompt's host is a container's id or a pod's
    name and no command typed names a container, and so is one typed at fish's prompt (`user@hostname ~>`, corpus 2740)
    or at bash's prompt of a home directory alone (`~/tabbyAPI$ python3 main.py`, corpus 2750, 2659: `$` is a user's
    other than root, `~` that user's home). So is a Python warning's file in a login user's home environment where the
    paste glued a word before its path (`invokeai-web/home/camus/.../site-packages/torch/cuda/__init__.py:141:
    UserWarning:`, corpus 2666). So is a paste whose journal holds the machine's desktop session (its
    display manager, `gdm3[7055]:`, or an autostart entry, `nvidia-settings-autostart.desktop[2777]:`, corpus 2469),
    which no container runs. So is a
    Slurm batch job whose pasted process tree (`ps --forest`) shows its work as the `slurm_script`'s own children,
    no container runtime or `srun` among them. So is TGI's launcher whose `text-generation-launcher --env` report
    reads `Docker label: N/A`, TGI's word for a launcher outside its image, where no container is shown. So is a paste
    whose `which nvidia-smi`, typed at a prompt where no command names a container, answers from WSL 2's driver mount
    (`/usr/lib/wsl/lib/nvidia-smi`, corpus 2080): WSL puts the mount on its distro's own PATH, and a container's PATH is
    its image's, so the shell is the WSL distro's own. So is a paste of the machine's own shell, where no command typed
    names a container: sudo asking a login user's password (`[sudo] password for h100:`, corpus 1885; a container's shell
    runs as root), or the machine's boot image or boot loader rebuilt, or a reboot (`depmod -a; update-initramfs -u;
    reboot`, corpus 1787; `$ reboot`, corpus 1556), which no container does (facts/container.MACHINE_SHELL).
    Docker Desktop on Windows runs its containers in WSL 2, so a container shown keeps the check open.
    The GPU Operator's driver or toolkit pod (`nvidia-driver-daemonset-*`, `nvidia-container-toolkit-daemonset-*`, or
    their containers nvidia-driver-ctr, nvidia-container-toolkit-ctr) that a `kubectl get pods` row shows in
    CrashLoopBackOff, Error, Init:CrashLoopBackOff, Init:Error, RunContainerError or an image pull's back-off, or whose
    pod events show kubelet's `Back-off restarting failed container` or `Error: failed to start container "<name>"`
    (facts/k8s_pods.py), means no driver or runtime hands the node's GPUs to its pods: an issue, the row quoted. So does its validator pod (`nvidia-operator-validator-*`,
    `nvidia-cuda-validator-*`, `nvidia-device-plugin-validator-*`) shown so: the operator's own proof that a pod on
    the node gets a working GPU fails. The operator's controller (`gpu-operator-*`) or its node feature discovery
    shown so is an issue only where a `kubectl get pods -A` listing shows the operator's namespace whole (a row of
    another namespace after it) with no driver, toolkit or device plugin pod in it: nothing it manages hands the GPUs
    out. A controller failing beside operands that may run (a `-n` listing, corpus 1658) decides nothing.
    A listing is no container spec: a pod shown Running says nothing of what another pod was given.
    The NVIDIA device plugin's pod shown in such a restart loop while the source shows its image run by hand with the
    nvidia runtime or a GPU request (`docker run --runtime=nvidia ... nvidia/k8s-device-plugin:1.8`, corpus 1386): the
    plugin reaches the GPUs where the runtime hands it the driver, so the pods the kubelet starts are not handed it
    (nvidia is not the node's default runtime): an issue, the row quoted. A plugin's restart loop alone says not why
    it exits (a MIG setting, a node without the driver): it decides nothing here.
    The runtime's hook `nvidia-container-cli configure` caught by top spinning on a CPU (facts/symptoms.py
    ctk-hook-stuck) is stuck setting up a container's GPUs: an issue, the row quoted.
    In a container the source shows whose device nodes and variables are not shown, nvidia-smi's `Unable to determine
    the device handle for GPU 0000:03:00.0: Unknown Error` (a GPU Operator validator's, corpus 1295; a Kata guest's)
    is NVML unable to open a GPU there: an issue over that GPU.
    In a Kubernetes GPU stack pod whose device nodes are not shown, the NVIDIA device plugin's own line that it found
    the NVML library (`Detected NVML platform: found NVML library`) or registered its resource with the kubelet
    (`Registered device plugin for 'nvidia.com/gpu' with Kubelet`; its 1.0.0 betas' `Registered device plugin with
    Kubelet`) shows the driver's NVML library and the GPUs reached
    the plugin's container, so the node offers them: ok, beside a node's description seen from outside too (corpus
    2064) (facts/container.PLUGIN_REACHED; not where it marks a device
    unhealthy). So does GKE's own device plugin's NVML answering for a GPU, or a MIG partition it discovered
    (`Discovered GPU partition: nvidia0/gi0`); its `Found Nvidia GPU` and kubelet registration follow a walk of /dev
    alone and prove no driver library (NVIDIA/k8s-device-plugin#250). A plugin stopped later by a `terminated` signal was deleted, no GPU fault.
    A `minikube start` with the docker or podman driver and no `--gpus` (facts/container.MINIKUBE_START) runs the
    Kubernetes node as a container given no GPU: its pods cannot be handed one, whatever the host's runtime is set to:
    an issue, unless the device plugin's own line shows it reached the GPUs.
    GKE's driver installer, the init container of its device plugin's pod, shown ending in `Waiting for GPU driver
    libraries to be available.` (after `GPU driver auto installation is disabled.`) waits for a driver no one installs:
    the plugin never starts and the node offers no nvidia.com/gpu: an issue, with a headerless `kubectl get pod` row
    of the plugin's pod held in `Init:` quoted (facts/container.GKE_INSTALLER_LINE); not where the plugin's own line
    shows it reached the GPUs after. Symptom lines too: the kubelet's `Allocate failed due to device plugin ...` naming
    NVML or an nvidia.com resource (UnexpectedAdmissionError: the pod refused its GPUs); a `journalctl -u
    nvidia-k8s-device-plugin` of this boot (or every boot) answered `-- No entries --` (Bottlerocket's host service
    never ran); torch's `UserWarning: Can't initialize NVML` in a container the source shows (on a bare host it is the
    host's driver, not this check's).
    nvidia-smi listing GPUs under a header reading `CUDA Version: N/A` in a container the source shows, or beside a
    container image it names (a tag, a start banner), is the driver's NVML and devices handed in without its CUDA
    library (no `compute` capability): an issue, of field-report confidence where only the image is named (corpus
    2393); not on a vGPU host driver, and a bare host's N/A is DRV-CUDA-COMPAT's (corpus 1293).
    A pasted Kubernetes node (`kubectl describe node`, `kubectl get node -o yaml`; facts/k8s_node.py) whose
    allocatable counts 0 of a GPU resource its capacity counts above 0 shows the device plugin reporting every GPU it
    registered unhealthy: an issue, both lines quoted. So is a node whose capacity counts a GPU resource at 0
    (`nvidia.com/gpu: "0"`) and no other GPU resource above 0: the kubelet lists it only once a device plugin
    registered it, and the plugin reports no device now (NVIDIA/k8s-device-plugin#1228, corpus 1979); a MIG node's
    `nvidia.com/gpu: 0` beside its `nvidia.com/mig-1g.5gb: 7` is its GPUs partitioned, not lost. So is a node GPU feature discovery labels with a GPU
    (`nvidia.com/gpu.present=true`, a product, a count above 0) whose whole Capacity lists no GPU resource: no device
    plugin serves it. So is the one node shown whose whole Capacity lists no GPU resource while lspci or nvidia-smi
    lists NVIDIA GPUs (corpus 2111); the node alone, or several nodes shown, decides nothing.
    A GPU node whose allocatable equals its capacity above 0 is the node's side reached: ok, the
    pods' own specs not shown. A GPU node cut before its Capacity shows neither: unknown. Nodes (or a pod) described
    from outside the pods, with no GPU resource of a node and no container spec read, are unknown, not out of scope:
    the cluster runs its work in containers, and which pods get GPUs is not shown (corpus 1946, 2171, 2172).
    The scheduler's "Insufficient nvidia.com/gpu" where every GPU node shown offers all its GPUs and its pods request
    every one (describe's Allocated resources, pasted alone too) counts GPUs taken, not lost: not an issue (corpus
    1945). The kubelet's admission refusal (UnexpectedAdmissionError, `Allocate failed due to`, `Update plugin
    resources failed due to`) is an issue where it names NVML, an nvidia.com resource or a GPU, in a GPU-sharing
    plugin's words too (`unable to find GPU device allocation by scheduler`, corpus 1932), and not where it names an
    amd.com resource. A pod's YAML status message folded over lines is read as one line.
    Triton's `CUDA memory pool disabled` (no GPU its CUDA reached, or none above its compute-capability floor) leaves a
    GPU request shown for its container unproven: unknown, the line quoted (corpus 1925).
    Where the source does not say whether the program ran in a container, its CUDA at work on the GPU (llama.cpp's
    CUDA backend, a program's CUDA proof of facts/cuda_ran.py such as ollama's discovery reading a GPU's free memory)
    shows the GPU and the driver's CUDA library reached it wherever it ran: ok (corpus 1927, 1930); so does a
    collect_env whose torch initialised CUDA (`Is CUDA available: True`, corpus 2799); not for a Windows program, which
    runs in no container.
    Docker's own daemon shown failed (`systemctl status docker`'s `Active: failed`, `Job for docker.service failed`,
    facts/nvidia_daemons.py), with no later line of it running, starts no container, GPU or not: an issue, the line
    quoted (after a daemon.json change that adds the nvidia runtime, NVIDIA/nvidia-docker#1002, corpus 1910). So does
    nvidia-docker 1's plugin daemon shown failed (`nvidia-docker.service: Main process exited, code=exited,
    status=1/FAILURE`): the `nvidia-docker` CLI gets each container's GPU devices and driver volume from it (corpus 2207).
    """
    down = _docker_down(nvidia_services)
    if down is not None:
        return down
    failing = k8s_pods.failing_provider() if k8s_pods is not None else None
    if failing is not None:
        kind = "container" if failing.name.endswith("-ctr") else "pod"
        return issue(f"the GPU Operator's {failing.role} {kind} {failing.name} does not run ({failing.status}: "
                     f"\"{failing.line}\"): {_PROVIDER_DOWN[failing.role]}; its own log (`kubectl logs <pod> "
                     "--all-containers --previous`) says why it fails", actual=failing.status, expected="Running",
                     subjects=[failing.name], evidence=[failing.line], fix=_provider_loop_fix(failing.name, failing.line))
    unmanaged = k8s_pods.operator_without_operands() if k8s_pods is not None else None
    if unmanaged is not None:
        return issue(f"the GPU Operator's {'node feature discovery' if 'feature-discovery' in unmanaged.name else 'controller'} "
                     f"pod {unmanaged.name} does not run ({unmanaged.status}: \"{unmanaged.line}\") and the "
                     f"operator's namespace {unmanaged.namespace}, whole in this listing, holds no driver, toolkit or "
                     "device plugin pod: nothing the operator manages hands the nodes' GPUs to pods",
                     actual=unmanaged.status, expected="Running", subjects=[unmanaged.name],
                     evidence=[unmanaged.line], fix=_provider_loop_fix(unmanaged.name, unmanaged.line))
    awaited = _driver_awaited(container, k8s_pods)
    if awaited is not None:
        return awaited
    by_hand = _plugin_only_by_hand(k8s_pods, docker_containers)
    if by_hand is not None:
        return by_hand
    node = _node_offer(k8s_nodes, gpus)
    if node is not None and node.status == "issue":
        return node
    gpuless = _node_without_gpus(container)
    if gpuless is not None:
        return gpuless
    leaked = _gpu_outside_request(container, docker_containers, gpus)
    if leaked is not None:
        return leaked
    said = trouble.line if trouble is not None and trouble.kind == "cpu" else ""
    judged = _gpu_access(container, gpu_devices, gpus, docker_containers, engine_shown=serving_log is not None,
                         on_cpu=said, driver_read=nvidia_driver is not None and bool(nvidia_driver.version))
    if judged.status in ("ok", "unknown") and (refused := _refused_past_driver(cuda_ran)) is not None:
        return refused
    if judged.status == "unknown" and container is not None and container.in_container:
        judged = _unopened_inside(nvidia) or _engine_reached(serving_log, gpus) or _smi_answered(container, gpus) \
            or _tests_opened(nccl_test_runs) or _plugin_reached(container) or judged
    if judged.status == "unknown":
        judged = _cuda_ran_inside(cuda_ran, container, docker_containers, engine_commands) \
            or _nccl_rings_inside(serving_log, container, docker_containers) \
            or _entrypoint_found_driver(cuda_ran, cuda_runtime, docker_containers) or judged
    if judged.status == "unknown" and (container is None or container.in_container):
        judged = _nvml_without_cuda(collect_env, container) or _cuda_without_library(nvidia, container, cuda_runtime) \
            or judged
    windows = virtualization is not None and virtualization.windows
    if judged.status == "unknown" and ((container is None and not windows) or (container is not None and container.in_container)):
        # A Windows program's nvidia-smi ran in no container (facts/applicability.LINUX_ONLY makes it not applicable).
        judged = _nvml_listed(gpus, container) or judged
    if judged.status == "unknown" and docker_containers is not None \
            and any(c.looks_like_serving for c in docker_containers.containers):
        # Triton's metrics lines come from the server in the serving container the spec shows (corpus 1817).
        judged = _nvml_listed(gpus, container, spec_shown=True, only_triton=True) or judged
    if judged.status == "unknown" and container is None and not windows:
        # A Windows program is in no container (facts/applicability.LINUX_ONLY makes it not applicable).
        judged = _cuda_reached_where_it_ran(serving_log, gpus, cuda_ran) or judged
    if judged.status == "unknown" and (renumbered := _instances_past_visible(engine_commands)) is not None:
        return renumbered
    if judged.status in ("not-applicable", "unknown") and container is not None and not container.in_container \
            and (reached := _plugin_reached(container)) is not None:
        # A node's description seen from outside its pods, beside the device plugin's own lines (corpus 2064).
        judged = reached
    if node is not None and (judged.status == "unknown" or (judged.status == "not-applicable"
                                                            and container is not None and not container.in_container)):
        return node
    beyond = nccl_test_runs.asked_beyond(gpus.whole_count if gpus is not None else None) \
        if nccl_test_runs is not None and judged.status == "unknown" else None
    if beyond is not None:
        line, procs, threads, ngpus, bound = beyond
        shown = f"the {bound} GPUs the source shows on it" if gpus is not None and gpus.whole_count is not None \
            else f"the {bound} GPUs of the largest single NVIDIA system (DGX-2)"
        least = "" if procs else "at least "  # a hostfile launch: one process on the host that failed, or more
        return not_an_issue(f"the nccl-tests run asked one host for {least}{(procs or 1) * threads * ngpus} GPUs "
                            f"({least}{procs or 1} process(es) x {threads} thread(s) x {ngpus} GPU(s) each, "
                            f"nccl-tests' -t and -g), more than {shown}: "
                            f"its '{line}' is CUDA refusing a device number that does not exist, not GPUs hidden from "
                            "the run (one process per GPU with -g 1, or one per host with -g <its GPUs>)",
                            actual={"asked_per_host": (procs or 1) * threads * ngpus, "bound": bound},
                            evidence=[line])
    if _given_gpus(container, gpu_devices, docker_containers):  # a CUDA/NVML "unknown error" is then this check's
        judged = replace(judged, sharpen=_GIVEN_GPUS_SHARPEN)
    elif (container is not None and container.in_container) or (container is None and k8s_pods is not None
                                                                 and bool(k8s_pods.pods)) \
            or _k8s_serving_spec(docker_containers):
        # A pasted pod listing: Kubernetes runs its work only in containers (the GPU Operator's validator, corpus 1173);
        # so does a pasted pod spec's serving container, its GPU request cut off or not (corpus 2579).
        judged = replace(judged, sharpen=_IN_CONTAINER_SHARPEN)
    # NCCL's channels on one host join the GPUs the container got: those are the GPUs shown.
    ranks = sorted({r for c in serving_log.channels for r in (c.src, c.dst)}) if serving_log is not None else []
    if judged.status == "ok" and ranks and serving_log is not None and not serving_log.multi_host:
        judged = over_subjects(replace(judged, message=f"{judged.message}; NCCL's channels join {len(ranks)} GPUs "
                                       f"(ranks {ranks[0]}-{ranks[-1]})"), [f"rank {r}" for r in ranks])
    return judged


def _docker_down(services: NvidiaServices | None) -> Outcome | None:
    """CTR-GPU-ACCESS an issue where Docker's daemon, or nvidia-docker 1's plugin daemon, is shown failed, its last state
    in the paste; None otherwise."""
    plugin = services.nvidia_docker if services is not None else None
    # Not running, after a failure the paste shows: systemd's `Stopped` between two tries of a restart loop (and its
    # `inactive (dead) (Result: exit-code)`) is no recovery.
    failure = next((x for x in reversed(plugin.log) if "fail" in x.lower()), "") if plugin is not None else ""
    if plugin is not None and plugin.installed is not False and plugin.active in ("failed", "inactive") and failure:
        line = failure
        return issue(f"nvidia-docker's plugin daemon does not run (\"{line}\"): the `nvidia-docker` CLI asks it for the "
                     "GPU devices and the driver volume of each container it starts, so none gets a GPU until it "
                     "does; its own error is in `journalctl -u nvidia-docker` (one cause: driver libraries of another "
                     "version than the loaded kernel module, the kernel log's `NVRM: API mismatch`, which a reboot or "
                     "a module reload mends)",
                     actual="nvidia-docker.service failed", expected="nvidia-docker.service active",
                     subjects=["nvidia-docker.service"], evidence=[line])
    dockerd = services.dockerd if services is not None else None
    if dockerd is None or dockerd.active != "failed":
        return None
    line = next((x for x in reversed(dockerd.log) if "failed" in x.lower()), dockerd.log[-1] if dockerd.log else "")
    return issue(f"Docker's daemon does not start (\"{line}\"): no container starts, GPU or not, until dockerd does; "
                 "after a change to /etc/docker/daemon.json (`default-runtime`, `runtimes`) its own error is in "
                 "`journalctl -u docker` (a daemon.json that is not valid JSON, a runtime set both there and in "
                 "the unit's --add-runtime)", actual="docker.service failed", expected="docker.service active",
                 subjects=["docker.service"], evidence=[line])


# CUDA's start refused for the driver's age (cudaErrorInsufficientDriver, 35), in its runtimes' and torch's words.
_DRIVER_TOO_OLD = re.compile(r"driver version is insufficient|InsufficientDriver|driver on your system is too old|"
                             r"the NVIDIA driver is too old")


def _refused_past_driver(cuda_ran: CudaRan | None) -> Outcome | None:
    """CTR-GPU-ACCESS not an issue where CUDA refused to start for the driver's age (status 35, CudaRan.failed) and
    the image's own start-up check found the driver inside the container (CudaRan.driver_inside: `NVIDIA Tegra driver
    detected.`): the runtime handed the driver over, and the refusal is the image's CUDA against it (DRV-CUDA-COMPAT's).
    cudart returns the same 35 where it finds no driver library at all, so the refusal alone decides nothing. None
    otherwise."""
    if cuda_ran is None or not cuda_ran.driver_inside or not _DRIVER_TOO_OLD.search(cuda_ran.failed):
        return None
    refused, found = cuda_ran.failed, cuda_ran.driver_inside
    return not_an_issue(f"CUDA refused to start in the container (\"{refused}\": cudaErrorInsufficientDriver, 35), "
                        f"which looks like the GPU not reaching it, but the image's start-up check found the driver "
                        f"there (\"{found}\"): the runtime handed the driver over, and what fails is the image's "
                        "CUDA against that driver (DRV-CUDA-COMPAT), not the container's access",
                        actual=refused, evidence=[found, refused])


def _unopened_inside(nvidia: NvidiaGpus | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue over the GPUs nvidia-smi could not open inside the container (its `Unable to determine the
    device handle for GPU <address>: <error>` line, facts/nvidia_smi.NO_HANDLE): NVML there cannot reach them, so no
    CUDA program in it gets them. None where every GPU shown opened."""
    lost = [g for g in (nvidia.gpus if nvidia is not None else ()) if g.error and g.bdf]
    if not lost:
        return None
    named = ", ".join(f"{g.bdf} (NVML: {g.error})" for g in lost)
    return issue(f"nvidia-smi in the container cannot get a handle to GPU(s) {named}: NVML cannot open them there, "
                 "so no container on this node gets a working GPU; a GPU lost right after its driver loads is often "
                 "off the bus (the host's kernel log names an Xid 79 or PCIe errors)",
                 actual={g.bdf: g.error for g in lost}, expected="every GPU opened by NVML",
                 subjects=[g.bdf for g in lost])


def _node_offer(k8s_nodes: K8sNodes | None, gpus: GpuInventory | None = None) -> Outcome | None:
    """CTR-GPU-ACCESS from a pasted node's description (facts/k8s_node.py): an issue where its allocatable holds
    back devices of a GPU resource its capacity counts, all or some (the device plugin reports them unhealthy), or
    where GPU feature discovery labels a GPU and its whole Capacity lists none (no device plugin registered one); ok where
    every GPU node shown offers all it registered; unknown where a GPU node shows neither. An issue too where the one
    node shown has a whole Capacity without a GPU resource and another source (lspci, nvidia-smi) lists NVIDIA GPUs
    (corpus 2111). None where no node shown has a GPU."""
    if k8s_nodes is None:
        return None
    bare = k8s_nodes.unserved() if not k8s_nodes.gpu_nodes else None
    if bare is not None and gpus is not None and gpus.gpus and gpus.counts:
        source, count = gpus.counts[0]
        models = ", ".join(dict.fromkeys(g.model for g in gpus.gpus if g.model)) or "NVIDIA GPU"
        line = bare.capacity[0].line if bare.capacity else "Capacity:"
        return issue(f"{source} lists {count} NVIDIA GPU(s) ({models}) on the machine, and the one node shown, "
                     f"{bare.name or '(unnamed)'}, lists no nvidia.com/gpu in its whole Capacity: no device plugin "
                     "registered its GPUs with the kubelet (the plugin is not running there, or found no NVML through "
                     "the node's container runtime), so no pod on it is given a GPU",
                     actual="no nvidia.com/gpu in capacity", expected=f"nvidia.com/gpu: {count}",
                     subjects=[bare.name or "node"], evidence=[line])
    if not k8s_nodes.gpu_nodes:
        return None
    if (withheld := k8s_nodes.withheld()) is not None:
        node, cap, alloc = withheld
        lost = int(cap.value) - int(alloc.value)
        held = ("every GPU it found unhealthy, so no pod that asks for one is scheduled there" if alloc.value == "0"
                else f"{lost} of the GPUs it found unhealthy, so no pod is given {'it' if lost == 1 else 'them'} and "
                f"the node serves {alloc.value} of its {cap.value}")
        return issue(f"node {node.name or '(unnamed)'} registers {cap.value} {cap.key} (capacity: `{cap.line}`) "
                     f"and offers {alloc.value} of them (allocatable: `{alloc.line}`): the device plugin reports "
                     f"{held}; the plugin's log names the devices it marked unhealthy (an Xid it watches, a GPU lost "
                     "or reset, ECC turned off)",
                     actual={"capacity": int(cap.value), "allocatable": int(alloc.value)},
                     expected="allocatable equal to capacity", subjects=[node.name or cap.key],
                     evidence=[cap.line, alloc.line])
    if (zeroed := k8s_nodes.zeroed()) is not None:
        node, cap = zeroed
        return issue(f"node {node.name or '(unnamed)'} counts {cap.key} at 0 in its capacity (`{cap.line}`): the "
                     "kubelet lists the resource because a device plugin registered it, and the plugin reports no "
                     "device now (it found none through NVML, or it went away and the kubelet zeroed it), so no pod "
                     "that asks for a GPU is scheduled there; the plugin's log from its start says which",
                     actual={"capacity": 0}, expected=f"{cap.key} above 0", subjects=[node.name or cap.key],
                     evidence=[cap.line])
    if (unoffered := k8s_nodes.unoffered()) is not None:
        node, line = unoffered
        return issue(f"node {node.name or '(unnamed)'} is labelled with a GPU (`{line}`) but its Capacity lists "
                     "no nvidia.com/gpu: no device plugin registered its GPUs with the kubelet (the plugin is not "
                     "running there, or found no NVML through the node's container runtime), so no pod on it is "
                     "given a GPU", actual="no nvidia.com/gpu in capacity", expected="nvidia.com/gpu above 0",
                     subjects=[node.name or "node"], evidence=[line])
    if offered := k8s_nodes.offered():
        said = "; ".join(f"node {n.name or '(unnamed)'}: " + ", ".join(f"{e.key} {e.value}" for e in entries)
                         for n, entries in offered)
        if taken := k8s_nodes.taken():
            # The scheduler's `Insufficient nvidia.com/gpu` then counts GPUs taken, not GPUs lost (Symptom.looks_only).
            held = "; ".join(f"node {n.name or '(unnamed)'}: " + ", ".join(f"`{e.line}`" for e in rows)
                             for n, rows in taken)
            return replace(ok(f"every GPU the device plugin registered is allocatable ({said}), and the pods on the "
                              f"node request all of them (Allocated resources: {held}): each GPU is handed whole to "
                              "one pod", actual={e.key: int(e.value) for _, entries in offered for e in entries},
                              subjects=[n.name or "node" for n, _ in offered],
                              evidence=[e.line for _, es in (*offered, *taken) for e in es]),
                           sharpen=Sharpen(f"every GPU the node offers ({said}) is requested by its pods "
                                           f"(Allocated resources: {held}), and the device plugin hands a GPU to one "
                                           "pod whole: the scheduler refuses another pod for GPUs taken, not lost "
                                           "(free one, add GPUs, or share them with time-slicing)",
                                           shows=(K8S_GPUS_TAKEN,)))
        return ok(f"every GPU the device plugin registered is allocatable ({said}): the plugin reached them through "
                  "the driver and reports them healthy; the pods' own specs are not shown",
                  actual={e.key: int(e.value) for _, entries in offered for e in entries},
                  subjects=[n.name or "node" for n, _ in offered], evidence=[e.line for _, es in offered for e in es])
    return unknown("a Kubernetes node with a GPU is shown, but not both its capacity and allocatable GPU resources: "
                   "whether the device plugin offers its GPUs to pods is not in this source",
                   hint="paste the whole `kubectl describe node <node>` (its Capacity and Allocatable)")


def _plugin_only_by_hand(k8s_pods: K8sPods | None, docker_containers: DockerContainers | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue where the device plugin's pod is shown in a restart loop while the source shows its
    image run by hand with the nvidia runtime (`docker run --runtime=nvidia ... nvidia/k8s-device-plugin`): the
    plugin reaches the GPUs where it is handed the driver, so the pods the kubelet starts are not (the node's
    default runtime is not nvidia, k8s-device-plugin#13, corpus 1386)."""
    failing = k8s_pods.failing_plugin() if k8s_pods is not None else None
    if failing is None or docker_containers is None:
        return None
    hand = next((c for c in docker_containers.containers if DEVICE_PLUGIN_IMAGE.search(c.image)
                 and (c.runtime == "nvidia" or c.gpu_requested)), None)
    if hand is None:
        return None
    how = "the nvidia runtime" if hand.runtime == "nvidia" else "a GPU request"
    return issue(f"the device plugin's pod {failing.name} is in a restart loop ({failing.status}: \"{failing.line}\") "
                 f"while its image {hand.image} run by hand with {how} ({hand.origin}) is handed the driver: the pods "
                 "the kubelet starts do not get the NVIDIA runtime (it is not the node's default runtime), so the "
                 "plugin finds no NVML, advertises no nvidia.com/gpu and no pod on the node is given a GPU; make "
                 "nvidia the default runtime (`nvidia-ctk runtime configure --runtime=docker --set-as-default`, or "
                 "containerd's default_runtime_name) and restart the runtime",
                 actual=failing.status, expected="Running", subjects=[failing.name], evidence=[failing.line])


# GKE installs a node's driver itself only where it is told to (the node pool's gpu-driver-version); otherwise the
# user installs it with GKE's driver installer DaemonSet.
_GKE_DRIVER_FIX = Fix.of(
    step("Install the node's NVIDIA driver: apply GKE's driver installer DaemonSet (Container-Optimized OS nodes), or "
         "create the node pool (or the auto-provisioning ComputeClass) with gpu-driver-version=default so that GKE "
         "installs it",
         "kubectl apply -f https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/master/"
         "nvidia-driver-installer/cos/daemonset-preloaded.yaml",
         cost="restart", scope="container-host", takes="install the driver on the node",
         keep=keep_text("gpu-driver-version=default on each GPU node pool (`--accelerator type=...,"
                        "gpu-driver-version=default`)", label="GKE")),
)


def _driver_awaited(container: ContainerInfo | None, k8s_pods: K8sPods | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue where GKE's driver installer, the init container of its device plugin's pod, is shown
    ending in its wait for driver libraries (ContainerInfo.driver_wait): no driver is installed on the node, so the
    plugin never starts and the node offers no nvidia.com/gpu. None where none is shown."""
    waits = container.driver_wait if container is not None else ""
    if not waits:
        return None
    held = next((p for p in (k8s_pods.pods if k8s_pods is not None else ())
                 if p.status.startswith("Init:") and "device-plugin" in p.name), None)
    shown = " ".join(held.line.split()) if held is not None else ""
    row = f"; its pod stays in its init containers (\"{shown}\")" if shown else ""
    return issue(f"GKE's driver installer, the init container of the node's device plugin pod, waits for a driver no "
                 f"one installs (\"{waits}\"){row}: GKE was not told to install the node's driver, so the device "
                 "plugin never starts, the node offers no nvidia.com/gpu and the pods that request one stay pending or "
                 "initialising", actual=waits, expected="the node's driver installed (GKE's installer, or the node "
                 "pool's gpu-driver-version)", evidence=[waits] + ([shown] if shown else []),
                 fix=_GKE_DRIVER_FIX)


def _node_without_gpus(container: ContainerInfo | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue where a pasted `minikube start` runs the Kubernetes node as a Docker or Podman container
    with no `--gpus` (ContainerInfo.node_without_gpus): the node's own runtime, which runs its pods, has no GPU and no
    driver library to hand them, whatever the host's runtime is set to. None where none is shown, or where the device
    plugin's own line shows it reached the GPUs all the same."""
    command = container.node_without_gpus if container is not None else ""
    if container is None or not command or container.plugin_reached:
        return None
    return issue(f"`{command}` runs the Kubernetes node as a container of the host's runtime with no `--gpus`: the "
                 "node's own container runtime, which runs its pods, has no GPU device and no driver library to "
                 "hand them (the host's containerd or Docker settings do not reach inside the node), so the device "
                 "plugin there finds no NVML and the node offers no nvidia.com/gpu; start the node with the GPUs "
                 "(`minikube start --driver docker --container-runtime docker --gpus all`, minikube 1.32 and later)",
                 actual=command, expected="minikube start ... --gpus all", evidence=[command],
                 fix=Fix.of(step("Recreate the minikube node with the host's GPUs (minikube 1.32 and later, docker driver; "
                                 "the host's Docker needs the NVIDIA runtime)", "minikube delete",
                                 "minikube start --driver docker --container-runtime docker --gpus all",
                                 cost="restart", scope="container-host", changes="the minikube node container",
                                 takes="recreate the minikube node",
                                 keep=keep_text("pass --gpus all to each `minikube start` that creates the node"))))


def _plugin_reached(container: ContainerInfo) -> Outcome | None:
    """CTR-GPU-ACCESS ok where the NVIDIA device plugin's own line shows it reached the GPUs through NVML
    (ContainerInfo.plugin_reached); None where none is shown."""
    line = container.plugin_reached
    if not line:
        return None
    if GKE_PLUGIN_LINE.search(line):
        what = "a MIG partition it will offer to pods" if "GPU partition" in line else "the GPUs through NVML"
        return ok(f"GKE's NVIDIA GPU device plugin found {what} in its container (\"{line}\"): the node's driver is "
                  "loaded and reaches the plugin, which hands the GPUs and GKE's driver libraries to its GPU pods",
                  actual=line, evidence=[line])
    offered = ", and the plugin offers the GPUs it found to the kubelet" if "Registered device plugin" in line else ""
    return ok(f"the NVIDIA device plugin's container reached the GPUs through the driver's NVML library (\"{line}\"): "
              f"the runtime hands the node's driver to its GPU pods{offered}", actual=line, evidence=[line])


def _engine_reached(serving_log: ServingLog | None, gpus: GpuInventory | None,
                    where: str = " in the container") -> Outcome | None:
    """CTR-GPU-ACCESS ok over the GPUs the engine `where` it runs worked on: llama.cpp's CUDA backend read their free
    memory or allocated its buffers there (ServingLog.ggml_cuda_devices), or listed them with their compute capability
    (`ggml_cuda_init`, GGML_TITLE); None where the log shows neither."""
    devices = list(serving_log.ggml_cuda_devices) if serving_log is not None else []
    if devices and serving_log is not None:
        line = serving_log.ggml_cuda_line
        return over_subjects(ok(f"the engine{where} worked on {', '.join(devices)} through CUDA (\"{line}\"): "
                                "the GPU device nodes and the driver's CUDA library reach it", actual=devices,
                                evidence=[line]),
                             [f"GPU {d.removeprefix('CUDA')}" for d in devices], None)
    listed = [g for g in (gpus.gpus if gpus is not None else ()) if GGML_TITLE in g.shown_by]
    if listed:
        return over_subjects(ok(f"llama.cpp's CUDA backend{where} found {len(listed)} device(s) and read "
                                f"their properties ({GGML_TITLE}): the GPU device nodes and the driver's CUDA "
                                "library reach it", actual=[g.model for g in listed]),
                             [f"GPU {g.index}" for g in listed], None)
    return None


def _cuda_ran_inside(cuda_ran: CudaRan | None, container: ContainerInfo | None,
                     docker_containers: DockerContainers | None,
                     engine_commands: EngineCommands | None = None) -> Outcome | None:
    """CTR-GPU-ACCESS ok where the source shows a container (the audit inside one, a pasted spec of the serving
    container or of one given GPUs, corpus 2670: a speech service's compose and torch's out-of-memory message, or the engine's command typed at a prompt that names a container: `root@a49f9772e6b2:~# lmdeploy serve
    ...`, corpus 2083) and a program's CUDA at work on the GPU (facts/cuda_ran.py: vLLM generating out of its GPU KV
    cache, torch's out-of-memory message, TensorRT-LLM's ledger, a kernel launch CUDA refused for want of the GPU's
    code, or a collect_env typed at the container's prompt whose torch initialised CUDA, or one whose own lines put its
    userland over another distribution family's kernel, `OS: Ubuntu 18.04.3 LTS` on `5.10.0-...oe2203.bclinux`, corpus
    2658: a container's): the device nodes and the
    driver's libraries reached it, whatever the spec shows of its request (nvidia as Docker's default runtime, a
    request in a part left out). None where no container is shown, where CUDA ran nowhere,
    or where a line shows it refusing to start. A kernel launch CUDA refused for want of code names no program or host
    (cuda_ran.Ran.launch): it counts where the engine's command is shown typed in the container, the program whose log
    it is."""
    engines = [c.line.strip() for c in engine_commands.commands] if engine_commands is not None else []
    typed = container is not None and any(command.strip() in engines for _, command in container.exec_into)
    # A collect_env typed at the container's prompt (`root@a3c882d4b9de:/workspace# python3 collect_env.py`, corpus
    # 2724): its torch initialising CUDA is the container's.
    reported = container is not None and container.in_container and any(map(report_command, container.ran_inside))
    proof = cuda_ran.proof(with_launch=typed, with_report=reported, with_read=True) if cuda_ran is not None else None
    shown = (container is not None and container.in_container) or typed or (
        docker_containers is not None and any(c.origin for c in docker_containers.gpu_or_serving))
    if proof is None or not shown:
        return None
    return ok(f"{proof.did}, in the container: its GPU device nodes and the driver's CUDA library reach it",
              actual=proof.program, evidence=[proof.line])


def _entrypoint_found_driver(cuda_ran: CudaRan | None, cuda_runtime: CudaRuntime | None,
                             docker_containers: DockerContainers | None = None) -> Outcome | None:
    """CTR-GPU-ACCESS ok where an NVIDIA image's entrypoint shows it found the driver inside its container, which it
    runs in alone: its driver check read the host driver's version (the NGC minor-version WARNING's `Using driver
    version 510.47.03 which has support for CUDA 11.6.`, corpus 2086; CudaRan.driver_inside), or its start banner (an
    NGC release's, or the CUDA image's `== CUDA ==`) runs to the program's own lines (facts/docker.ngc_banner_ended)
    without the check's `WARNING: The NVIDIA Driver was not detected`, which it prints where libcuda or /dev/nvidiactl
    is missing (corpus 2815, 2882). None where a line of the check says it found no driver, or the banner is cut
    (corpus 2872, 2880); None too where the check refused the driver it read (`This container was built for NVIDIA
    Driver Release ...`, `compatibility mode is UNAVAILABLE`): its failure rules the access out (facts/symptoms.py),
    the driver's age is DRV-CUDA-COMPAT's (corpus 1189, 2879). None where a pasted `docker run` of nvidia-smi shows
    its output naming no GPU: that probe is judged by its answer (corpus 1527, 1536)."""
    if docker_containers is not None and any(c.probe_lists_no_gpu for c in docker_containers.containers):
        return None
    checks = cuda_runtime.ngc_checks if cuda_runtime is not None else ()
    if any(NGC_CHECK[key][1].search(line) for line in checks
           for key in ("no-driver", "no-version", "built-for", "unavailable")):
        return None
    found = (cuda_ran.driver_inside if cuda_ran is not None else "") \
        or next((line for line in checks if ngc_driver_found(line)), "")
    if found:
        return ok(f"the image's entrypoint read the driver inside its container (\"{found[:120]}\"): the driver's "
                  "library and device nodes reached it", evidence=[found])
    ended = cuda_runtime.ngc_ended if cuda_runtime is not None else ()
    if not ended:
        return None
    return ok(f"the image's start banner (\"{ended[0][:80]}\") runs to the program's own lines without the entrypoint's "
              "`WARNING: The NVIDIA Driver was not detected`, which its driver check prints where the driver's CUDA "
              "library or /dev/nvidiactl is missing in the container: the driver reached it", evidence=[ended[0]])


def _cuda_reached_where_it_ran(serving_log: ServingLog | None, gpus: GpuInventory | None,
                               cuda_ran: CudaRan | None) -> Outcome | None:
    """CTR-GPU-ACCESS ok where the source does not say whether the program ran in a container and shows its CUDA at
    work on the GPU: llama.cpp's CUDA backend working on a device or listing it (_engine_reached), a program's CUDA
    proof (facts/cuda_ran.py: ollama's discovery reading a GPU's free memory, vLLM's KV cache in use, a collect_env's
    torch initialising CUDA). The GPU and the
    driver's CUDA library reached the process wherever it ran, so a container it ran in was given them. None
    otherwise."""
    reached = _engine_reached(serving_log, gpus, where="")
    if reached is not None:
        return replace(reached, message=reached.message + ", wherever it runs (a container it runs in was given them)")
    proof = cuda_ran.proof(with_report=True) if cuda_ran is not None else None
    if proof is None:
        return None
    return ok(f"{proof.did}: the GPU device nodes and the driver's CUDA library reach it wherever it runs (a container "
              "it runs in was given them)", actual=proof.program, evidence=[proof.line])


def _nccl_rings_inside(serving_log: ServingLog | None, container: ContainerInfo | None,
                       docker_containers: DockerContainers | None) -> Outcome | None:
    """CTR-GPU-ACCESS ok where the source shows a container (the audit inside one, or a pasted spec of a GPU or
    serving container) and a rank's NCCL set up its communicator there (ServingLog.nccl_rings_line, `host:pid:tid [1]
    NCCL INFO Ring`, or its CPU affinity for the GPU): NCCL read its CUDA device's PCI bus id through the driver's CUDA
    library first. None otherwise, and None where NCCL warns that NVML failed on a GPU (`nvmlDeviceGetHandleByPciBusId()
    failed: Not Found`, NVIDIA/nccl#1529): the worse line leaves access in question."""
    line = serving_log.nccl_rings_line if serving_log is not None else ""
    if serving_log is not None and any(re.search(r"\bnvml\w*\(\) failed", w) for w in serving_log.nccl_warnings):
        return None
    shown = (container is not None and container.in_container) or (
        docker_containers is not None and any(c.origin for c in docker_containers.gpu_or_serving))
    if not line or not shown:
        return None
    return ok(f"a rank's NCCL set up its communicator on its CUDA device (\"{line}\"), in the container: NCCL reads "
              "the device's PCI bus id through CUDA before it places the rank (its communicator, rings, CPU affinity, P2P query, the GPU's sysfs path), so the GPU device "
              "nodes and the driver's CUDA library reach it", actual=line, evidence=[line])


def _tests_opened(runs: NcclTestRuns | None) -> Outcome | None:
    """CTR-GPU-ACCESS ok over the devices a pasted nccl-tests run's ranks opened in the container (its device list,
    `Rank 0 Pid 12414 on 51e6e7896958 device 0 [0x1a] Tesla V100-SXM3-32GB`: CUDA read each device's PCI bus id and
    name there); None where no device list is shown or a run failed choosing its GPUs."""
    if runs is None or runs.ordinal_failures or runs.unstarted:
        return None
    groups = [g for g in runs.groups if g.devices]
    if not groups:
        return None
    devices = sorted({d for g in groups for d in g.devices})
    models = ", ".join(dict.fromkeys(m for g in groups for m in g.models if m))
    line = groups[0].lines[0] if groups[0].lines else ""
    return over_subjects(ok(f"nccl-tests' ranks in the container opened {len(devices)} CUDA device(s) ({models}) and "
                            f"read their PCI bus ids (\"{line}\"): the GPU device nodes and the driver's CUDA library "
                            "reach it", actual=devices, evidence=[line] if line else []),
                         [f"GPU {d}" for d in devices], None)


# nvidia-smi as typed to list the GPUs (its table, `-L`, `-q`, `--query-gpu`): not `--version`, help or a sub-command
# that reads no GPU. Its topology matrices (`topo -m`, `topo -mp`, `topo -p2p <cap>`) give a row to every GPU NVML opens
# (corpus 2355): they list the GPUs, by index only.
_SMI_VERSION = re.compile(r"^(?:sudo\s+)?nvidia-smi\s+--version\b")
_SMI_LISTS = re.compile(r"^(?:sudo\s+)?nvidia-smi(?!\s+(?:--version|-h\b|--help|topo\b|nvlink\b|-pm\b|-r\b))")
_SMI_TOPO = re.compile(r"^(?:sudo\s+)?nvidia-smi\s+topo\s+(?:-mp?|--matrix|-p2p\s+[rwnap]{1,2})\b")
# TGI's launcher reporting its runtime environment (`text-generation-launcher --env`): launcher/src/env_runtime.rs runs
# `nvidia-smi` where it runs and prints its table under `nvidia-smi:` (`N/A` where it fails; corpus 2586).
_TGI_ENV = re.compile(r"^text-generation-launcher\s(?:[^\n]{0,2000}?\s)?--env\b")
# The GPU listing each form of a typed nvidia-smi prints (facts/gpus.py titles), and a command that runs it.
_SMI_LISTING = ((_SMI_LISTS, NVIDIA_TITLE), (_SMI_TOPO, TOPOLOGY_TITLE), (_SMI_TOPO, P2P_MATRIX_TITLE),
                (_TGI_ENV, NVIDIA_TITLE))


def _smi_answered(container: ContainerInfo, gpus: GpuInventory | None) -> Outcome | None:
    """CTR-GPU-ACCESS ok over the GPUs nvidia-smi listed where the source shows it typed inside the container
    (ContainerInfo.ran_inside, a prompt that names the container): NVML opened the GPUs' device nodes through the
    driver's libnvidia-ml there; None where no such nvidia-smi, or no GPU it listed, is shown."""
    typed, listed = "", []
    for command in container.ran_inside:
        titles = {title for rx, title in _SMI_LISTING if rx.match(command)}
        listed = [g for g in (gpus.gpus if gpus is not None else ()) if titles & set(g.shown_by)]
        if listed:
            typed = command
            break
    if not listed:
        return None
    models = ", ".join(dict.fromkeys(g.model for g in listed if g.model))
    return over_subjects(ok(f"`{typed}` run inside the container lists {len(listed)} GPU(s)"
                            + (f" ({models})" if models else "")
                            + ": the GPU device nodes and the driver's NVML library reach it",
                            actual=[g.model for g in listed], evidence=[*container.evidence, typed]),
                         [f"GPU {g.index}" for g in listed], None)


def _gpu_outside_request(container: ContainerInfo | None, docker_containers: DockerContainers | None,
                         gpus: GpuInventory | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue where the one whole pod spec pasted asks for no GPU and nvidia-smi run in that pod by
    `kubectl exec` (ContainerInfo.exec_into) lists GPUs: they reach it outside the device plugin's allocation; None
    otherwise."""
    spec = docker_containers.own_spec if docker_containers is not None else None
    if container is None or container.in_container or spec is None or spec.origin != ORIGIN_K8S \
            or spec.gpu_requested:
        return None
    pod = spec.id.partition("/")[0]
    typed = next((command for target, command in container.exec_into
                  if (target == pod or target.startswith(pod + "-")) and _SMI_LISTS.match(command)), "")
    listed = [g for g in (gpus.gpus if gpus is not None else ()) if NVIDIA_TITLE in g.shown_by] if typed else []
    if not listed:
        return None
    names = ", ".join(dict.fromkeys(g.model for g in listed if g.model))
    return over_subjects(issue(
        f"pod {pod} asks for no {K8S_GPU_RESOURCE} (its spec's container {spec.label} has no GPU limit), yet `{typed}` "
        f"run in it lists {len(listed)} GPU(s) ({names}): the GPU reaches the container outside the device plugin's "
        "allocation (the image's NVIDIA_VISIBLE_DEVICES=all under nvidia as the node's default runtime), so pods the "
        "scheduler gave no GPU share the ones it gives others",
        actual=[g.model for g in listed], expected=f"no GPU without a {K8S_GPU_RESOURCE} limit",
        subjects=[spec.label], evidence=[f"kubectl exec {pod} -- {typed}"],
        fix=Fix.of(step("Keep GPUs to the pods that request them: set the device plugin's "
                        "`deviceListStrategy` to volume-mounts (or CDI) with `accept-nvidia-visible-devices-envvar-when-"
                        "unprivileged = false` in the toolkit's config.toml, then restart the runtime", cost="restart",
                        scope="container-host"))),
        [f"GPU {g.index}" for g in listed], None)


def _nvml_listed(gpus: GpuInventory | None, container: ContainerInfo | None = None, spec_shown: bool = False,
                 only_triton: bool = False) -> Outcome | None:
    """CTR-GPU-ACCESS ok where `nvidia-smi -L` answered with GPUs (NVSMI_LIST_TITLE): NVML opened the GPU device nodes
    through the driver's libnvidia-ml where it ran, which inside a container is what the toolkit hands over; a
    container's failure the log shows (`Failed to initialize NVML`) still proves the issue. Triton's metrics start-up
    finding GPUs through NVML (`found 2 GPUs supporting NVML metrics`, TRITON_METRICS_TITLE) is the same answer where
    the source shows the container Triton runs in (the audit inside it, or a pasted spec of the serving container,
    `spec_shown`). `only_triton` reads Triton's lines alone. None without a listing."""
    listed = [] if only_triton else [g for g in (gpus.gpus if gpus is not None else ()) if NVSMI_LIST_TITLE in g.shown_by]
    inside = (container is not None and container.in_container) or spec_shown
    found = dict(gpus.counts).get(TRITON_METRICS_TITLE, 0) if gpus is not None and inside else 0
    if not listed and found:
        return over_subjects(ok(f"Triton's metrics in the container found {found} GPU(s) through NVML ({TRITON_METRICS_TITLE}): "
                                "the GPU device nodes and the driver's NVML library reach it", actual=found),
                             [f"GPU {i}" for i in range(found)], None)
    if not listed:
        return None
    names = ", ".join(dict.fromkeys(g.model for g in listed if g.model))
    return ok(f"{NVSMI_LIST_TITLE} lists {len(listed)} GPU(s) ({names}): NVML reached the GPU device nodes through the "
              "driver's library where it ran, so a container it ran in was given them", actual=[g.label for g in listed])


def _cuda_without_library(nvidia: NvidiaGpus | None, container: ContainerInfo | None,
                          cuda_runtime: CudaRuntime | None) -> Outcome | None:
    """CTR-GPU-ACCESS issue where nvidia-smi lists GPUs under a header reading `CUDA Version: N/A` (it asks libcuda for
    that figure and found none) in a container the source shows, or beside a container image the source names (its tag,
    its start banner: facts/cuda_ran.CudaRuntime): the driver's NVML library and the devices reached the container and
    its CUDA library did not, which is the toolkit's hand-over without `compute` (CTK_CAPABILITIES), so no CUDA program
    starts there (corpus 2393, a RAPIDS container). Not on a vGPU host driver, which ships no libcuda (vgpu_host); None
    otherwise."""
    if nvidia is None or nvidia.cuda_version != "N/A" or not any(not g.error for g in nvidia.gpus) or vgpu_host(nvidia):
        return None
    shown = container is not None and container.in_container
    image = next((r.where for r in (cuda_runtime.runtimes if cuda_runtime is not None else ())), "")
    if not shown and not image:
        return None
    where = "in the container" if shown else f"beside the container image {image}"
    return issue(f"nvidia-smi {where} lists the GPUs but its header reads `CUDA Version: N/A`: the driver's NVML library "
                 "and the device nodes reached it and the driver's CUDA library (libcuda) did not, so no CUDA program "
                 "starts there; the container toolkit mounts libcuda only with the `compute` capability "
                 f"(NVIDIA_DRIVER_CAPABILITIES=compute,utility, or `--gpus all`; {CTK_CAPABILITIES})",
                 actual={"cuda": "N/A"}, expected="the driver's CUDA version in the header, libcuda in the container",
                 confidence=None if shown else "field-reports")


def _nvml_without_cuda(collect_env: CollectEnv | None, container: ContainerInfo | None) -> Outcome | None:
    """CTR-GPU-ACCESS from a report where torch could not initialise NVML while CUDA came up
    (CollectEnv.nvml_without_cuda_fault): the driver's CUDA library reached it and its NVML library did not, which is
    the container toolkit's hand-over with `compute` and without `utility` (CTK_CAPABILITIES), or an image's own
    libnvidia-ml beside the host's libcuda. Of documented confidence in a container the source shows; of field-report
    confidence where the source does not say whether it ran in one. In a container the source shows, the warning is
    the issue whatever the report shows of CUDA (its state cut away, corpus 2212). None without such a report."""
    line = collect_env.nvml_without_cuda_fault if collect_env is not None else ""
    shown = container is not None and container.in_container
    if not line and shown and collect_env is not None and collect_env.nvml_failed:
        # In a container the source shows, the warning alone is this check's (facts/symptoms.py
        # torch-nvml-in-container), whatever the report shows of CUDA (cut before it, corpus 2212).
        failed = collect_env.nvml_failed
        return issue("torch in the container could not initialise NVML (`UserWarning: Can't initialize NVML`): the "
                     "driver's NVML library does not reach the container or cannot open its GPUs there (no GPU "
                     "request, no NVIDIA runtime, or NVIDIA_DRIVER_CAPABILITIES without `utility`), so nvidia-smi and "
                     "the engines that probe the GPUs through NVML find none there", actual=failed,
                     expected="NVIDIA_DRIVER_CAPABILITIES with compute,utility and the host's libnvidia-ml",
                     evidence=[*container.evidence[:1], failed] if container is not None else [failed])
    if not line:
        return None
    where = "" if shown else ("; the source does not show the container itself (`cat /proc/1/cgroup`, `ls -a /` "
                              "would), but a bare host's driver installs NVML beside CUDA")
    return issue("torch could not initialise NVML (`UserWarning: Can't initialize NVML`) while CUDA is available: the driver's "
                 "CUDA library reaches this environment and its NVML library does not, so nvidia-smi and NVML "
                 "readers (collect_env's GPU models and driver version, an engine's device queries) fail. In a "
                 "container that is NVIDIA_DRIVER_CAPABILITIES without `utility` (the toolkit mounts nvidia-smi and "
                 "libnvidia-ml only with it) or an image carrying its own libnvidia-ml of another version "
                 f"({CTK_CAPABILITIES}){where}", actual=line,
                 expected="NVIDIA_DRIVER_CAPABILITIES with compute,utility and the host's libnvidia-ml",
                 confidence=None if shown else "field-reports", evidence=[line])


def _k8s_serving_spec(docker_containers: DockerContainers | None) -> bool:
    """Whether a pasted Kubernetes pod spec shows a serving engine's container: the engine's lines are that
    container's, for Kubernetes runs its work only in containers."""
    return docker_containers is not None and any(c.origin == ORIGIN_K8S and c.looks_like_serving
                                                 for c in docker_containers.containers)


def _given_gpus(container: ContainerInfo | None, gpu_devices: GpuDeviceAccess | None,
                docker_containers: DockerContainers | None) -> bool:
    """Whether the source shows a container given GPUs: a pasted spec's GPU request, or inside the container the
    NVIDIA runtime's GPU nodes or NVIDIA_VISIBLE_DEVICES."""
    if docker_containers is not None and any(c.origin and c.gpu_requested for c in docker_containers.containers):
        return True
    if container is None or not container.in_container or gpu_devices is None:
        return False
    visible = (gpu_devices.env or {}).get("NVIDIA_VISIBLE_DEVICES")
    return bool(gpu_devices.gpu_nodes) or visible not in (None, "", "void", "none")


def _instances_past_visible(commands: EngineCommands | None) -> Outcome | None:
    """Not an issue where a Triton command's model configs shown put instances on a CUDA device number at or past the
    count its CUDA_VISIBLE_DEVICES (by index or UUID) leaves it; None otherwise (gpu_access)."""
    for c in commands.commands if commands is not None else ():
        visible = c.as_process().visible_devices if c.engine == "triton" else None
        if not visible or not all(v.isdecimal() or v.startswith(("GPU-", "MIG-")) for v in visible):
            continue  # a `$GPUS` the paste does not set names no count
        past = sorted({g for group in c.instance_gpus for g in group if g >= len(visible)})
        if not past:
            continue
        mask = c.as_process().env("CUDA_VISIBLE_DEVICES")
        numbers = ", ".join(str(n) for n in range(len(visible)))
        return not_an_issue(
            f"Triton's model configs put instances on GPU {', '.join(map(str, past))} (instance_group `gpus`), but "
            f"CUDA_VISIBLE_DEVICES={mask} on its command leaves the server {len(visible)} CUDA device(s), numbered "
            f"{numbers}: the configs name device numbers that do not exist for the server, so its models fail to "
            "load for the config, not for GPUs withheld from the container (NVML, whose list Triton's metrics print, "
            f"ignores the variable); name the visible devices as {numbers} in `gpus`, or drop the variable",
            actual={"instance_gpus": past, "CUDA_VISIBLE_DEVICES": mask}, expected=f"gpus within 0-{len(visible) - 1}",
            evidence=[f"CUDA_VISIBLE_DEVICES={mask}", c.line])
    return None


def _gpu_access(container: ContainerInfo | None, gpu_devices: GpuDeviceAccess | None, gpus: GpuInventory | None,
                docker_containers: DockerContainers | None, engine_shown: bool = False, on_cpu: str = "",
                driver_read: bool = False) -> Outcome:
    """CTR-GPU-ACCESS from what the container and its spec show (the engine adds the log's symptoms); `on_cpu`: the
    user's words that the workload runs on the CPU (facts/trouble.ON_CPU), "" where none; `driver_read`: whether the
    source shows the loaded driver's version (facts/nvidia.NvidiaDriver)."""
    if container is None:
        return unknown("", needs="container")
    if container.in_container:
        dev = gpu_devices
        spec = docker_containers.own_spec if docker_containers is not None else None
        if (dev is None or (dev.nodes is None and dev.env is None)) and spec is not None and not spec.gpu_requested \
                and spec.runtime != "nvidia":
            return not_applicable(f"no GPU requested for this container: the pasted {spec.origin} of {spec.label} has "
                                  "no --gpus, GPU device or nvidia runtime")
        if dev is None or (dev.nodes is None and dev.env is None):
            return unknown("the container's /dev/nvidia* nodes and NVIDIA_* variables are not in this source",
                           hint="run `ls -l /dev/nvidia*` and `env | grep NVIDIA` in the container")
        env = dev.env or {}
        visible = env.get("NVIDIA_VISIBLE_DEVICES")
        caps = env.get("NVIDIA_DRIVER_CAPABILITIES")
        gpu_nodes = dev.gpu_nodes
        wants = bool(gpu_nodes) or (visible not in (None, "", "void", "none"))
        if not wants:
            if gpus is not None and gpus.none_on_bus:
                return not_applicable("no NVIDIA GPU on the PCI bus")
            return not_applicable("no GPU requested for this container (no NVIDIA_VISIBLE_DEVICES, no /dev/nvidia*)")
        problems: list[str] = []
        if dev.nodes is not None:
            if not gpu_nodes:
                problems.append(f"NVIDIA_VISIBLE_DEVICES={visible} but no /dev/nvidiaN node: the NVIDIA runtime "
                                "did not inject the GPUs (started without --gpus / the nvidia runtime?)")
            else:
                for node, why in (("nvidiactl", "every CUDA/NVML call opens it"),
                                  ("nvidia-uvm", "CUDA initialisation fails without it")):
                    if not dev.has(node):
                        problems.append(f"/dev/{node} is missing ({why})")
        if caps and caps != "all":
            have = {c.strip() for c in caps.split(",")}
            lacking = [c for c in ("compute", "utility") if c not in have]
            if lacking:
                problems.append(f"NVIDIA_DRIVER_CAPABILITIES={caps} lacks {','.join(lacking)}: the toolkit does not "
                                "mount the CUDA/NVML libraries")
        if dev.version_mismatch and container.kind != "lxc":
            problems.append(f"user-space driver {dev.userspace_version} ({dev.userspace_lib}) != kernel module "
                            f"{dev.kernel_version}: NVML fails with 'Driver/library version mismatch'")
        evidence = [f"/dev: {' '.join(sorted(dev.nodes or ()))}"] + [f"{k}={v}" for k, v in sorted(env.items())]
        if problems:
            return issue("; ".join(problems), actual=problems, expected="/dev/nvidiaN, nvidiactl, nvidia-uvm; "
                         "capabilities compute,utility; matching driver versions",
                         subjects=list(gpu_nodes) or ["/dev/nvidia*"], evidence=evidence)
        total = gpus.count_in(PCI_TITLE) if gpus is not None else None
        of = f" of {total} on the PCI bus" if total is not None and dev.nodes is not None else ""
        return ok(f"{len(gpu_nodes)} GPU node(s){of} exposed ({', '.join(gpu_nodes)}), nvidiactl and nvidia-uvm "
                  f"present, capabilities {caps or 'default (utility,compute)'}"
                  + (f", driver {dev.kernel_version}" if dev.kernel_version else ""),
                  actual=list(gpu_nodes), subjects=list(gpu_nodes))
    if docker_containers is None and container.outside_spec == "kubernetes":
        # A node's or a pod's description seen from outside the pods (corpus 1946, 2112, 2171, 2172), no container spec
        # read from it: what a pod is given is in its spec and the device plugin's offer, which a node's description
        # shows where it holds a GPU resource (_node_offer).
        return unknown("the source describes Kubernetes from outside its pods (a node's or a pod's description) and "
                       "shows no container spec and no GPU resource of a node: which pods are given GPUs, and whether "
                       "the device plugin offers any, is not in this source",
                       hint="paste the whole `kubectl describe node <node>` (Capacity, Allocatable) and the pod's spec")
    if docker_containers is None:
        return not_applicable("not in a container and no Docker containers to read")
    # A pasted spec (docker run, compose, pod) that asks for GPUs is the workload the user asks about.
    serving = [c for c in docker_containers.containers
               if c.looks_like_serving or (c.origin and (c.gpu_requested or c.gpus_by_env or c.cuda_asked))]
    if any(c.excerpt and c.origin == ORIGIN_INSPECT_EXCERPT and not _requests_shown(c)
           for c in docker_containers.containers):
        return unknown("the pasted container spec is an excerpt: its runtime, environment and device requests "
                       "may be in the part left out", hint="paste the whole `docker inspect <container>`")
    if not serving and any(c.excerpt and c.origin in (ORIGIN_K8S, ORIGIN_COMPOSE) and not c.gpu_requested
                           for c in docker_containers.containers):
        if any(c.origin == ORIGIN_K8S for c in docker_containers.containers):
            return unknown("the pasted pod spec is a piece (no image shown): its GPU request and runtime may be in "
                           "the part left out", hint="paste the whole pod spec (`kubectl get pod <pod> -o yaml`)")
        cut = ", ".join(c.label for c in docker_containers.containers if c.excerpt and c.origin == ORIGIN_COMPOSE)
        return unknown(f"the pasted compose service {cut} is cut part-way: its GPU request (deploy.resources."
                       "reservations.devices, runtime, devices) may be in the part left out",
                       hint="paste the whole compose file (`docker compose config`)")
    if not serving:
        # A container the paste starts (`docker run`, `podman run`, `nvidia-docker run`) is one the source shows, serving
        # or not: a line of its program failing to reach the GPU there (Symptom.within IN_CONTAINER: NVML's
        # `Insufficient Permissions`, `No devices were found`) is this check's (corpus 2507, 2508).
        started = any(c.origin == ORIGIN_DOCKER_RUN and not c.excerpt for c in docker_containers.containers)
        return replace(not_applicable("no serving container on this Docker host"),
                       sharpen=_IN_CONTAINER_SHARPEN if started else None)
    other_gpus = [c for c in serving if not c.gpu_requested and c.devices
                  and all(d.startswith(("/dev/dri", "/dev/kfd", "/dev/accel")) for d in c.devices)]
    if other_gpus and len(other_gpus) == len(serving):
        return not_applicable("the serving containers get non-NVIDIA GPU devices only ("
                              + ", ".join(sorted({d for c in other_gpus for d in c.devices})[:4]) + ")")
    by_hand = [(c, value) for c in serving if (value := c.visible_devices_by_hand) is not None]
    if by_hand:
        return issue(f"NVIDIA_VISIBLE_DEVICES={by_hand[0][1]!r} set by hand beside a device-plugin GPU request: "
                     + "; ".join(
            f"{c.label or 'the container'}: NVIDIA_VISIBLE_DEVICES={value!r} with {K8S_GPU_RESOURCE}: "
            f"{c.gpu_count or '?'}" for c, value in by_hand)
            + ": the NVIDIA runtime honours the variable, so the container may reach GPUs the plugin did not "
            "allocate to it (or miss the one it did); leave the variable to the plugin",
            actual={c.label: value for c, value in by_hand}, expected=f"no NVIDIA_VISIBLE_DEVICES beside "
            f"{K8S_GPU_RESOURCE}", subjects=[c.label or "container" for c, _ in by_hand])
    unparsed = [c for c in serving if c.gpu_requested and c.cuda_visible_none]
    if unparsed:
        # The blind readings of 2655 (both readers): compose's `CUDA_VISIBLE_DEVICES: all` beside the GPU request.
        return issue("CUDA_VISIBLE_DEVICES names no device CUDA can parse: "
                     + "; ".join(f"{c.label}: CUDA_VISIBLE_DEVICES={c.cuda_visible_none}" for c in unparsed)
                     + ": CUDA reads the variable as a comma-separated list of GPU indices or UUIDs and keeps only the "
                     "devices listed before the first entry it cannot parse, so none is visible inside although the "
                     "runtime hands the GPUs in (`all` is NVIDIA_VISIBLE_DEVICES' word, not CUDA's)",
                     actual={c.label: c.cuda_visible_none for c in unparsed},
                     expected="CUDA_VISIBLE_DEVICES unset, or GPU indices (from 0 inside) or UUIDs",
                     subjects=[c.label for c in unparsed])
    missing = [(c, ids) for c in serving if (ids := c.cuda_ordinals_missing)]
    if missing:
        first, ids = missing[0]
        n = first.gpu_count or 0
        return issue(f"CUDA_VISIBLE_DEVICES={first.env_value('CUDA_VISIBLE_DEVICES')} names GPUs that {first.label} "
                     f"does not have ({n} GPU{'s' if n != 1 else ''} given, numbered 0-{max(n - 1, 0)} inside): the "
                     f"runtime renumbers a container's GPUs from 0, so index {ids[0]} has no device and CUDA finds none "
                     "from there (no CUDA GPUs, invalid device ordinal)"
                     + "".join(f"; {c.label}: CUDA_VISIBLE_DEVICES={c.env_value('CUDA_VISIBLE_DEVICES')} with "
                               f"{c.gpu_count} given" for c, _ in missing[1:]),
                     actual={c.label: c.env_value("CUDA_VISIBLE_DEVICES") for c, _ in missing},
                     expected="CUDA_VISIBLE_DEVICES unset, or indices below the GPUs given (or GPU UUIDs)",
                     subjects=[c.label for c, _ in missing])
    short = [(c, pair) for c in serving if (pair := c.ranks_beyond_gpus) is not None]
    if short:
        return issue(f"an engine asks for {short[0][1][0]} GPUs (TP x PP) where its container sees at most "
                     f"{short[0][1][1]}: "
                     + "; ".join(f"{c.label}: TP x PP = {world}, at most {seen} GPU{'s' if seen > 1 else ''} "
                                 f"({_visible_from(c)})" for c, (world, seen) in short)
                     + ": the engine cannot place its ranks and fails at start",
                     actual={c.label: {"ranks": world, "gpus": seen} for c, (world, seen) in short},
                     expected="as many GPUs as TP x PP (the request and CUDA_VISIBLE_DEVICES)",
                     subjects=[c.label for c, _ in short])
    bad = [c for c in serving if not c.gpu_requested]
    told = [c for c in bad if c.cuda_asked and not c.gpus_by_env and c.origin == ORIGIN_DOCKER_RUN]
    if told and len(told) == len(bad):
        # The blind readings of 2677 (both readers): a whole `docker run` with no GPU request whose own command tells
        # its program to use CUDA: only a daemon whose default runtime is nvidia would hand it a GPU, which nothing
        # shows, and a GPU the user means to give is asked for with --gpus.
        return issue("serving containers whose command asks for CUDA ("
                     + "; ".join(f"{c.label}: {c.cuda_asked}" for c in told)
                     + ") started without any GPU request (no --gpus, CDI device, nvidia runtime or /dev/nvidia "
                     "device): the NVIDIA runtime hands such a container no GPU and no driver library (unless nvidia is "
                     "the daemon's default runtime, which nothing shows), so CUDA finds no device; a "
                     "CUDA_VISIBLE_DEVICES index also counts the container's own GPUs from 0",
                     actual={c.label: c.cuda_asked for c in told},
                     expected="--gpus '\"device=N\"' (or --gpus all) on the docker run, and no CUDA_VISIBLE_DEVICES "
                              "index past the GPUs given", subjects=[c.label for c in told])
    if bad and all(c.origin in (ORIGIN_COMPOSE, ORIGIN_DOCKER_RUN) for c in bad):
        # A pasted spec says what it asks for, not which runtime Docker runs it with: with `default-runtime: nvidia`
        # in daemon.json (the documented way for Swarm stacks) every container gets the GPUs without a request.
        # A spec the paste cuts (an excerpt) may hold its request in the part left out.
        cut_specs = [c.label for c in bad if c.excerpt]
        return unknown("serving containers without any GPU request in the pasted spec (no --gpus, CDI device, "
                       f"nvidia runtime or /dev/nvidia device): {', '.join(c.label for c in bad)}; "
                       + (f"the spec of {', '.join(cut_specs)} is cut, so its request may be in the part left out; "
                          if cut_specs else "")
                       + "they get GPUs only if nvidia is Docker's default runtime, which the paste does not show",
                       hint="`docker info | grep -i runtime` (or add a GPU request to the spec)",
                       actual={c.label: c.runtime or "default" for c in bad})
    # A piece of a pod spec shows no more than the keys pasted: its container's `resources:` may be in the part left
    # out (corpus 1405: a `containers:` list with name, image and args only).
    cut_pods = [c for c in bad if c.origin == ORIGIN_K8S and c.excerpt]
    if cut_pods and len(cut_pods) == len(bad):
        return unknown("the pasted pod spec is a piece that shows no GPU request for "
                       + ", ".join(c.label for c in cut_pods) + ": its `resources.limits` (nvidia.com/gpu) and the "
                       "pod's runtime class may be in the part left out",
                       hint="paste the whole pod spec (`kubectl get pod <pod> -o yaml`)")
    if bad:
        return issue("serving containers without any GPU request (no --gpus, CDI device, nvidia runtime or "
                     f"/dev/nvidia device): {', '.join(c.label for c in bad)}",
                     actual={c.label: c.runtime or "runc" for c in bad}, expected="--gpus / CDI GPU devices",
                     subjects=[c.label for c in bad])
    # `--gpus 0` is a count of zero GPUs, not GPU 0: Docker asks the runtime for none, and the image's own
    # NVIDIA_VISIBLE_DEVICES decides (every GPU in a CUDA image, none elsewhere): not the GPU the user meant.
    zero = [c for c in serving if c.zero_gpus_asked]
    if zero:
        gets = {c.label: "every GPU of the host (the image sets NVIDIA_VISIBLE_DEVICES=all)"
                if c.image_sees_every_gpu else "no GPU unless its image sets NVIDIA_VISIBLE_DEVICES" for c in zero}
        return issue("`--gpus 0` asks for a count of zero GPUs, not GPU 0: Docker requests no device from the NVIDIA "
                     "runtime, so what the container gets is left to its image's NVIDIA_VISIBLE_DEVICES: "
                     + "; ".join(f"{label}: {what}" for label, what in gets.items())
                     + "; name the GPU with `--gpus '\"device=0\"'` (or a count of 1)",
                     actual={c.label: "--gpus 0" for c in zero}, expected="--gpus '\"device=N\"' or --gpus N > 0",
                     subjects=[c.label for c in zero], fix=_ZERO_GPUS_FIX)
    # A pod its status shows not scheduled has no GPU yet: why (no free GPU, a taint, a selector) is in its events.
    waiting = [c for c in serving if c.unscheduled]
    if waiting:
        return unknown("the pod of " + ", ".join(c.label for c in waiting) + " asks for GPUs but is not scheduled "
                       "(PodScheduled False or Pending with no node): its containers hold no GPU until the scheduler "
                       "places it, and why it does not (no node with a free nvidia.com/gpu, a taint, a node selector) "
                       "is in the pod's events, not in this source",
                       hint="paste the Events of `kubectl describe pod <pod>` and `kubectl describe node` (Allocatable "
                       "nvidia.com/gpu)")
    # A piece of a spec that does not show its container's image is not shown to be the one that serves, nor whole:
    # its GPU request is no evidence of access (an ok needs the container's whole spec). A piece whose args set an
    # engine's TP x PP within its GPU request is the engine's container, given the GPUs its ranks need.
    # An image the user hid behind a placeholder (`<image>`) leaves the same gap: what the container runs.
    pieces = [c for c in serving if ((c.excerpt and not c.image) or c.image_hidden) and not _requests_shown(c)
              and not (c.parallel_world and c.gpu_count and c.parallel_world <= c.gpu_count)]
    if pieces:
        if all(c.image_hidden for c in pieces):
            return unknown("the pasted `docker run` asks for GPUs ("
                           + ", ".join(f"{c.label}: {'all' if c.gpu_count is None else c.gpu_count}" for c in pieces)
                           + f") but hides its image behind a placeholder ({pieces[0].image}): what the container runs "
                           "is not shown, nor anything from inside it that shows a GPU reached it",
                           hint="paste the image's name and `docker exec <container> nvidia-smi` (or its log)")
        return unknown("the pasted spec is a piece of a container (no image shown): it asks for GPUs ("
                       + ", ".join(f"{c.label}: {'all' if c.gpu_count is None else c.gpu_count}" for c in pieces)
                       + "), but which container it is and the rest of its spec are in the part left out",
                       hint="paste the whole pod spec (`kubectl get pod <pod> -o yaml`) or `docker inspect`")
    # An image built for ROCm (AMD) given the NVIDIA GPUs: the runtime hands them over, but its programs carry no CUDA
    # code to run there, so the GPUs stay idle for the image's sake, not the container's access (corpus 828).
    amd_builds = [c for c in serving if c.gpu_requested and c.rocm_build]
    if amd_builds and len(amd_builds) == len([c for c in serving if c.gpu_requested]):
        return not_an_issue("the GPU request hands the NVIDIA GPUs to the container, but its image is a ROCm (AMD) "
                            "build: " + ", ".join(f"{c.label} ({c.image})" for c in amd_builds)
                            + "; its programs carry no CUDA code, so they run on the CPU whatever the container is "
                            "given: use the image's CUDA build (the tag without `rocm`)",
                            actual={c.label: c.image for c in amd_builds}, subjects=[c.label for c in amd_builds])
    # A container run only to test GPU access (nvidia-smi) is judged by its output, not its request: where the paste
    # shows that output and it names no GPU (cut before the first GPU row, or a failure in its place), what the run
    # got is not shown, and its request is no evidence (a failure line the output holds is a symptom, proving the issue).
    unanswered = [c for c in serving if c.probe_lists_no_gpu]
    if unanswered:
        return unknown("the pasted `docker run` of nvidia-smi shows its output, and that output names no GPU (cut "
                       "before its first GPU row, or an error in its place): "
                       + ", ".join(f"{c.label} ({'all' if c.gpu_count is None else c.gpu_count} requested)"
                                   for c in unanswered)
                       + "; a GPU request is no proof the GPUs reached the container, its nvidia-smi's answer is",
                       hint="paste the whole output of the `docker run ... nvidia-smi` (with the error it ends in)",
                       actual={c.label: "output names no GPU" for c in unanswered})
    inside_shown = container is not None and bool(container.exec_into or container.ran_inside)
    asked = ", ".join(f"{c.label} ({'all' if c.gpu_count is None else c.gpu_count}"
                      + (f", for its args' TP x PP of {c.parallel_world}" if c.parallel_world and not c.image else "")
                      + ")" for c in serving)
    listing_cut = gpus is not None and bool(gpus.cut_before_gpus) and any(not c.gpu_count for c in serving)
    # A command typed inside the container counts by its answer, not by being typed: nvidia-smi by a GPU listing
    # (gpus.listed) or a failure line (a symptom, which proves the issue over this verdict), with its output cut away
    # nothing (corpus 329); `nvidia-smi --version` by the loaded driver's version it reads through NVML there (corpus
    # 229); an engine or a Python check by its lines of CUDA at work (facts/cuda_ran.py, read after this verdict), not
    # by a failure before any CUDA call (corpus 2874: a module not found; 1876: a torch check cut before its answer).
    typed = [command for _, command in container.exec_into] + list(container.ran_inside) if container is not None else []
    worked_inside = driver_read and any(_SMI_VERSION.match(command.strip()) for command in typed)
    if not engine_shown and not worked_inside and not (gpus is not None and gpus.listed) \
            and (on_cpu or not listing_cut) and all(c.origin for c in serving):
        # A request is what the spec asks for, not what the runtime handed over: with nothing from the container's
        # side (an engine log, a command typed inside it) and no GPU listing, the GPU is not shown reaching it
        # (corpus 1989, 2201, 2743, 2746, 2818: both blind readers). A whole `docker inspect` (no origin) is the daemon's
        # record of a container it created, its requests set up at its start (a request the runtime cannot meet fails
        # the start), and keeps its ok. A request for every GPU beside a listing cut before its first GPU is judged
        # below, on that listing (corpus 1755). Where the user says the workload runs on the CPU, the request is what those
        # words put in question (corpus 1809, 2816). A GPU listing shown (nvidia-smi, which users run inside the
        # container to check: corpus 567, 2674) leaves the request as the majority of readers read it; a GPU the
        # user's words name (an issue form's `GPU:` row, corpus 2157, 2743) is no listing.
        if on_cpu:
            return unknown(f"serving containers request GPUs: {asked}; but the user says the workload runs on the CPU "
                           f"(\"{on_cpu}\") and nothing from inside the container (its engine's log, nvidia-smi run "
                           "there) shows the GPU reached it: a request is no proof of access, and a model kept on the "
                           "CPU by its own settings looks the same",
                           hint="paste `docker exec <container> nvidia-smi` and the engine's log from its start",
                           actual={c.label: "requested, not shown inside" for c in serving})
        return unknown(f"serving containers request GPUs: {asked}; but nothing from the container's side (its "
                       "engine's log, nvidia-smi run there) and no GPU listing shows a GPU reached it: a request is "
                       "what the spec asks for, not what the runtime handed over",
                       hint="paste `docker exec <container> nvidia-smi` and the engine's log from its start",
                       actual={c.label: "requested, not shown inside" for c in serving})
    judged = ok(f"serving containers request GPUs: {asked}", subjects=[c.label for c in serving])
    if any(not c.gpu_count for c in serving):
        # `--gpus all`, CDI `nvidia.com/gpu=all`: every GPU of the host, which the spec does not count; the verdict is
        # over the GPUs the source lists, where it lists any.
        listed = [g.label for g in gpus.gpus if g.label] if gpus is not None else []
        if not listed and gpus is not None and (cut := gpus.cut_before_gpus) and not engine_shown \
                and not inside_shown:
            # The listing pasted to show the GPUs stops before any: the request names no GPU the source shows.
            return unknown("serving containers request every GPU (" + ", ".join(
                c.label for c in serving if not c.gpu_count) + f"), but the GPU listing shown is cut before its first "
                f"GPU ({cut}): no GPU is shown for the request to hand over, and nothing from inside the container "
                "shows one reached it", hint="paste the whole nvidia-smi, or its output inside the container "
                "(`docker exec <container> nvidia-smi`), or the engine's log from its start",
                actual={c.label: "all" for c in serving if not c.gpu_count})
        if not listed and gpus is not None and gpus.cut_before_gpus and container is not None \
                and "nvidia-smi" in container.ran_inside:
            # nvidia-smi draws its table only over a GPU NVML opened (with none it prints `No devices were found`).
            return replace(judged, message=f"{judged.message}; nvidia-smi run inside the container drew its table "
                           "(cut before its GPU rows): NVML opened at least one GPU there")
        return over_subjects(judged, listed, gpus.whole_count) if listed and gpus is not None else judged
    # The GPUs the requests name, counted: the ones this verdict is over.
    return over_subjects(judged, [f"{c.label} GPU {k}" for c in serving for k in range(c.gpu_count or 0)])


def _requests_shown(c: DockerContainer) -> bool:
    """Whether a `docker inspect` excerpt shows the GPU requests of a container it names whole (DeviceRequests to its
    closing `]`, DockerContainer.requests_whole; `docker inspect ollama | jq '.[0].HostConfig.DeviceRequests'`, corpus
    2130): a request for GPUs there is judged as a whole spec's, whatever else of the spec is left out."""
    return c.origin == ORIGIN_INSPECT_EXCERPT and c.requests_whole and bool(c.name) and c.gpu_requested


def _visible_from(c: DockerContainer) -> str:
    """What bounds the GPUs a container's engine sees, as its spec writes it."""
    said = [f"CUDA_VISIBLE_DEVICES={c.env_value('CUDA_VISIBLE_DEVICES')}"] if c.cuda_visible_count is not None else []
    if c.gpu_count is not None:
        said.insert(0, f"a request for {c.gpu_count} GPU{'s' if c.gpu_count > 1 else ''}")
    return ", ".join(said)


# --- CTR-LXC-DEVICES -------------------------------------------------------------------------


def _lxc_device_problems(cfg: LxcConfig, configs: LxcConfigs) -> tuple[list[str], list[str]]:
    """(problems, things that cannot be told) for one GPU container config."""
    problems: list[str] = []
    unsure: list[str] = []
    exposed = cfg.exposed_paths()
    passthrough = set(cfg.dev_passthrough)  # Proxmox creates the node and its cgroup rule

    def allowed(path: str, major: int | None, minor: int) -> bool:
        return path in passthrough or (major is not None and cfg.allows("c", major, minor))

    gpus = sorted((p for p in exposed if p.startswith("/dev/nvidia") and p[11:].isdecimal()), key=lambda p: int(p[11:]))
    for path in gpus:
        if not allowed(path, NVIDIA_MAJOR, int(path[11:])):
            problems.append(f"{path} is mounted but no cgroup rule allows c {NVIDIA_MAJOR}:{path[11:]}")
    uvm_major = configs.major("nvidia-uvm")
    needed = [("/dev/nvidiactl", NVIDIA_MAJOR, NVIDIACTL_MINOR, "every CUDA/NVML call opens it"),
              ("/dev/nvidia-uvm", uvm_major, 0, "CUDA initialisation fails without it")]
    wildcard = any(r.kind == "a" or (r.kind == "c" and r.major is None) for r in cfg.device_allows)
    for path, major, minor, why in needed:
        missing = []
        if path not in exposed:
            missing.append("no mount entry")
        if path in passthrough or wildcard:
            pass
        elif major is None:  # the host's nvidia-uvm major is not in this source
            others = sorted({r.major for r in cfg.device_allows if r.major not in (None, NVIDIA_MAJOR)})
            if not others:
                missing.append("no cgroup rule for its dynamic major (`grep nvidia-uvm /proc/devices`)")
            else:
                unsure.append(f"{path}: rules allow majors {others}; whether one is the host's nvidia-uvm major "
                              "needs `grep nvidia-uvm /proc/devices` on the host")
        elif not allowed(path, major, minor):
            missing.append(f"no cgroup rule for c {major}:{minor}")
        if missing:
            text = f"{path} has {' and '.join(missing)} ({why})"
            (unsure if cfg.truncated else problems).append(text)
    if configs.char_majors is not None:
        known = set(configs.char_majors.values())
        stale = sorted({r.major for r in cfg.device_allows if r.major is not None and r.major not in known
                        and r.major >= 234})
        if stale and uvm_major is not None and not cfg.allows("c", uvm_major, 0):
            problems.append(f"cgroup rules name major(s) {stale} that this host does not have: copied from another "
                            f"host? nvidia-uvm is {uvm_major} here")
    return problems, unsure


@check(
    "CTR-LXC-DEVICES",
    title="LXC config for NVIDIA GPUs (cgroup device rules, bind mounts, driver version)",
    severity="high",
    confidence="field-reports",
    fix=Fix.of(
    step("Find the nvidia-uvm device major on the host", sh("grep nvidia-uvm /proc/devices"), cost="none",
         scope="container-host"),
    step("Pass the NVIDIA devices into the container in its config (/etc/pve/lxc/<id>.conf `key: value` or "
         "/var/lib/lxc/<name>/config `key = value`), then restart the container", cost="restart",
         scope="container-host", takes="restart the container", changes="the container's cgroup device list and mounts",
         keep=(keep_line("lxc.cgroup2.devices.allow: c 195:* rwm", "/etc/pve/lxc/<id>.conf", label="LXC"),
               keep_line("lxc.cgroup2.devices.allow: c <nvidia-uvm major>:* rwm", "/etc/pve/lxc/<id>.conf",
                         label="LXC"),
               keep_line("lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file",
                         "/etc/pve/lxc/<id>.conf", label="LXC",
                         text="likewise nvidia0.., nvidia-uvm, nvidia-uvm-tools"),
               keep_line("devN: /dev/nvidia-uvm", "/etc/pve/lxc/<id>.conf", label="Proxmox >= 8.1"))),
    step("Pin the host's and the container's driver packages to the same version", cost="restart",
         scope="container", takes="restart the container"),
),
    references=(LXC_CONF_MAN,),
)
def lxc_devices(container: ContainerInfo, lxc_configs: LxcConfigs | None = None,
                gpu_devices: GpuDeviceAccess | None = None) -> Outcome:
    """Reads: on the LXC host every /etc/pve/lxc/<id>.conf and /var/lib/lxc/<name>/config that
    passes NVIDIA devices (cgroup2 device rules, `lxc.mount.entry`, Proxmox `devN:`) and the
    host's /proc/devices majors; inside an LXC container the /dev/nvidia* nodes and
    /proc/driver/nvidia/version against the version libnvidia-ml.so.1 resolves to.

    Bad value: nvidiactl or nvidia-uvm without a mount or an allow rule (CUDA fails); an allow
    rule for a major this host does not have (copied config: nvidia-uvm's major is dynamic);
    user-space driver version != kernel module version (NVML mismatch).

    Why: the cgroup device controller blocks open() of nodes not allowed; LXC's common.conf
    denies all devices first, even for privileged containers, so only explicit allow rules lift it.

    Traps: `lxc.cgroup2.devices.allow: a` (or `c *:* rwm`) needs no per-device rules. Proxmox
    `devN:` entries create node and rule themselves. A config copy that is cut off cannot show
    the missing rules: unknown, not an issue. Compare the user-space library, not nvidia-smi.
    """
    if container.in_container:
        if container.kind != "lxc":
            return not_applicable(f"{container.kind} container, not LXC")
        dev = gpu_devices
        if dev is None or dev.nodes is None:
            return unknown("the container's /dev/nvidia* nodes are not in this source",
                           hint="run `ls -l /dev/nvidia*` in the container, or read its config on the host")
        problems = []
        if dev.gpu_nodes:
            for node in ("nvidiactl", "nvidia-uvm"):
                if not dev.has(node):
                    problems.append(f"/dev/{node} is missing: add its mount entry and cgroup rule on the host")
        if dev.version_mismatch:
            problems.append(f"user-space driver {dev.userspace_version} != host kernel module {dev.kernel_version}: "
                            "install the same version without the kernel module (`--no-kernel-module`)")
        if problems:
            return issue("; ".join(problems), actual=problems, expected="nvidiactl, nvidia-uvm, matching versions",
                         subjects=list(dev.gpu_nodes) or ["/dev/nvidia*"], evidence=[dev.kernel_version_line])
        if not dev.gpu_nodes:
            return not_applicable("no /dev/nvidiaN in this LXC container: no GPU passed through")
        return ok(f"{len(dev.gpu_nodes)} GPU node(s), nvidiactl and nvidia-uvm present"
                  + (f"; driver {dev.kernel_version} on both sides" if dev.kernel_version and dev.userspace_version
                     else ""), actual=list(dev.gpu_nodes))
    if lxc_configs is None:
        return not_applicable("not in a container and no LXC configs in this source")
    gpu_cfgs = [c for c in lxc_configs.configs if c.gpu_intent]
    if not gpu_cfgs:
        return not_applicable(f"{len(lxc_configs.configs)} LXC config(s), none passes NVIDIA devices")
    problems = []
    unsure = []
    evidence = []
    for cfg in gpu_cfgs:
        p, u = _lxc_device_problems(cfg, lxc_configs)
        problems += [f"{cfg.name}: {x}" for x in p]
        unsure += [f"{cfg.name}: {x}" for x in u]
        evidence += [f"{cfg.path}: {line}" for line in cfg.lines
                     if "devices.allow" in line or ("mount.entry" in line and "nvidia" in line)]
        if cfg.truncated:
            unsure.append(f"{cfg.name}: the config copy is cut off after its last complete line "
                          "(the missing lines may hold the rules)")
    names = [c.name for c in gpu_cfgs]
    if problems:
        return issue("; ".join(problems), actual=problems, expected="allow rules and mounts for nvidia0.., "
                     "nvidiactl (195:255) and nvidia-uvm (its major here)", subjects=names, evidence=evidence)
    if unsure:
        return unknown("; ".join(unsure), hint="paste the whole config (`cat /etc/pve/lxc/<id>.conf`) and "
                       "`grep nvidia /proc/devices` from the host", subjects=names)
    return ok("GPU containers allow and mount nvidia0.., nvidiactl and nvidia-uvm: " + ", ".join(names),
              subjects=names)


# --- CTR-LXC-HOST-SCOPE ----------------------------------------------------------------------


def _prlimit_hard(value: str) -> int | None:
    """`lxc.prlimit.nofile = 1024:4096` -> 4096; `unlimited` -> None; a single value is soft = hard."""
    hard = value.split(":")[-1].strip()
    if hard in ("unlimited", "-1"):
        return None
    return int(hard) if hard.isdecimal() else None


@check(
    "CTR-LXC-HOST-SCOPE",
    title="LXC: prlimit, AppArmor and host-only knobs",
    severity="medium",
    confidence="documented",
    fix=Fix.of(
    step("Raise the container's limits in its config, then restart it", cost="restart", scope="container-host",
         takes="restart the container",
         keep=(keep_line("lxc.prlimit.nofile = 1048576", "the container's LXC config", label="LXC"),
               keep_line("lxc.prlimit.memlock = unlimited", "the container's LXC config", label="LXC, RDMA"),
               keep_line("lxc.apparmor.profile = unconfined", "the container's LXC config",
                         label="only if required", text="a security trade-off"))),
    note="apply the host-level knobs (numa_balancing, THP, cpufreq, PCI) on the LXC host",
),
    references=(LXC_CONF_MAN,),
)
def lxc_host_scope(container: ContainerInfo, lxc_configs: LxcConfigs | None = None,
                   self_limits: ResourceLimits | None = None, kernel_log: KernelLog | None = None,
                   rdma: RdmaDevices | None = None) -> Outcome:
    """Reads: LXC configs' `lxc.prlimit.nofile`, `lxc.prlimit.memlock`, `lxc.apparmor.profile`;
    inside LXC /proc/self/limits; `dmesg` lines `apparmor="DENIED"` naming nvidia or the container.

    Bad value: nofile hard limit < 65536 (RT-ULIMIT-NOFILE); memlock limited where RDMA is used
    (CTR-MEMLOCK); AppArmor denials on /dev/nvidia* or mounts.

    Why: `lxc.prlimit.*` sets the rlimits of the container's init, inherited by everything in it.
    Kernel sysctls (numa_balancing, THP), cpufreq, cpuidle and all PCI state are not namespaced:
    they can only be changed on the host.

    Traps: /proc/sys values read inside LXC are the host's: correct to report, but the fix goes to
    the host. lxcfs virtualises /proc/meminfo and /proc/cpuinfo (CPU counts may be the limit).
    """
    inside = container.in_container and container.kind == "lxc"
    if not inside and (lxc_configs is None or not lxc_configs.configs):
        if container.in_container:
            return not_applicable(f"{container.kind} container, not LXC")
        return not_applicable("not in an LXC container and no LXC configs in this source")
    problems: list[str] = []
    notes: list[str] = []
    subjects: list[str] = []
    rdma_used = rdma is not None and bool(rdma.names)
    if inside:
        if self_limits is not None and self_limits.known(NOFILE, 1):
            hard = self_limits.hard(NOFILE)
            if hard is not None and hard < NOFILE_MIN:
                problems.append(f"open files hard limit {hard} < {NOFILE_MIN} (set lxc.prlimit.nofile on the host)")
                subjects.append("nofile")
        if self_limits is not None and rdma_used and not self_limits.is_unlimited(MEMLOCK):
            soft = self_limits.soft(MEMLOCK)
            if soft is not None and soft < MEMLOCK_ENOUGH:
                problems.append(f"memlock {_size(soft)} with RDMA devices present (lxc.prlimit.memlock = unlimited)")
                subjects.append("memlock")
        notes.append("host-level knobs (numa_balancing, THP, cpufreq, cpuidle, PCI) read here are the host's: "
                     "fix them on the LXC host")
    for cfg in lxc_configs.configs if lxc_configs else ():
        if not cfg.gpu_intent and len(lxc_configs.configs if lxc_configs else ()) > 1:
            continue
        nofile = cfg.prlimit("nofile")
        if nofile is not None:
            hard = _prlimit_hard(nofile)
            if hard is not None and hard < NOFILE_MIN:
                problems.append(f"{cfg.name}: lxc.prlimit.nofile = {nofile} (hard < {NOFILE_MIN})")
                subjects.append(cfg.name)
        mem = cfg.prlimit("memlock")
        if rdma_used and (mem is None or _prlimit_hard(mem) is not None):
            problems.append(f"{cfg.name}: memlock {'not set (inherits the default)' if mem is None else mem} with "
                            "RDMA devices on the host")
            subjects.append(cfg.name)
        profile = cfg.apparmor_profile
        if profile == "unconfined":
            notes.append(f"{cfg.name}: AppArmor unconfined (security trade-off)")
        mem_mib, swap_mib = cfg.last("memory"), cfg.last("swap")
        notes.append(f"{cfg.name}: {'unprivileged' if cfg.unprivileged else 'privileged'}"
                     + (f", memory {mem_mib} MiB" if mem_mib else "") + (f", swap {swap_mib} MiB" if swap_mib else "")
                     + (" (its /dev/shm and host-side buffers count against this limit)" if mem_mib else ""))
    if kernel_log is not None:
        denied = [ln for ln in kernel_log.grep(r'apparmor="DENIED"', needles=('apparmor="denied"',)) if "nvidia" in ln or "lxc" in ln]
        if denied:
            problems.append(f"{len(denied)} AppArmor denials name nvidia devices or LXC: {denied[0].strip()[:160]}")
            subjects.append("apparmor")
    if problems:
        return issue("; ".join(problems), actual=problems, expected=f"nofile hard >= {NOFILE_MIN}, memlock unlimited "
                     "with RDMA, no AppArmor denials", subjects=subjects)
    fragments = [c.name for c in (lxc_configs.configs if lxc_configs else ()) if _lxc_fragment(c)]
    if fragments and not inside and len(fragments) == len(lxc_configs.configs if lxc_configs else ()):
        # Never ok from what a source cannot show: a few pasted lxc.* lines say nothing of the keys left out.
        return unknown(f"{', '.join(fragments)}: only some lxc.* lines are shown (no arch/hostname/rootfs keys), so "
                       "its prlimit and AppArmor settings are not in the source",
                       hint="paste the whole /etc/pve/lxc/<id>.conf (or the container's config file)")
    return ok("; ".join(notes) or "no limiting prlimit or AppArmor setting found", actual=notes)


_LXC_WHOLE_KEYS = ("arch", "hostname", "rootfs", "ostype", "lxc.rootfs.path", "lxc.uts.name", "lxc.include")


def _lxc_fragment(cfg: LxcConfig) -> bool:
    """A pasted piece of a config: none of the keys every Proxmox or LXC config file has."""
    return not any(cfg.last(key) is not None for key in _LXC_WHOLE_KEYS)


# --- CTR-CPU-LIMITS --------------------------------------------------------------------------


@check(
    "CTR-CPU-LIMITS",
    title="Container CPU quota/cpuset too small or on the wrong NUMA node",
    severity="medium",
    confidence="field-reports",
    fix=Fix.of(
    step("Raise or remove the CPU limit and give the engine its GPUs' local cores",
         "docker update --cpus <n> --cpuset-cpus <GPU-local cores> <ctr>", cost="restart", scope="container",
         changes="the container's CPU quota and cpuset",
         keep=(keep_line("--cpuset-cpus=<GPU-local cores>", "docker run", label="Docker"),
               keep_text("Guaranteed QoS with kubelet `cpuManagerPolicy: static` and `topologyManagerPolicy: "
                         "single-numa-node`", label="Kubernetes"),
               keep_line("lxc.cgroup2.cpuset.cpus = <GPU-local cores>", "the container's LXC config",
                         label="LXC", text="or Proxmox `cores:`"))),
),
    references=("https://github.com/vllm-project/vllm/issues/6854", "https://github.com/vllm-project/vllm/issues/8147",
                K8S_TOPOLOGY),
)
def cpu_limits(container: ContainerInfo, cgroup_limits: CgroupLimits | None = None,
               serving_processes: ServingProcesses | None = None, gpu_devices: GpuDeviceAccess | None = None,
               gpus: GpuInventory | None = None, numa: NumaTopology | None = None,
               docker_containers: DockerContainers | None = None, lxc_configs: LxcConfigs | None = None,
               parallelism: Parallelism | None = None) -> Outcome:
    """Reads: inside a container cgroup v2 `cpu.max`, `cpu.stat` (nr_throttled, nr_periods),
    `cpuset.cpus.effective` (v1: cpu.cfs_quota_us/cfs_period_us, cpuset.cpus); the GPUs' NUMA
    nodes; on a host Docker NanoCpus/CpuQuota/CpusetCpus and LXC `cores:`/cpuset of GPU containers.

    Bad value: fewer CPUs than roughly TP + 4 (API server, engine core, one per TP worker,
    tokenizer/detokenizer); throttling in more than 1 % of CFS periods; a cpuset entirely on NUMA
    nodes without any GPU.

    Why: vLLM/SGLang schedulers are CPU-bound Python loops per step (5-13 ms GPU bubbles measured
    by vLLM maintainers); CFS throttling stalls a step for up to a quota period (100 ms).

    Traps: thresholds are heuristics; newer vLLM versions need less CPU. nr_throttled counts since
    the cgroup was created: sample again under load to see it rise.
    """
    tp = _engine_tp(parallelism)
    visible = _gpu_count(gpu_devices)
    need = (tp or visible or 1) + 4
    basis = f"TP x PP = {tp}" if tp else f"{visible} visible GPU(s)" if visible else "no engine or GPU count seen"
    gpu_nodes = set(gpus.numa_nodes().values()) if gpus is not None else set()
    if container.in_container:
        if tp is None and (visible == 0 or (not visible and gpus is not None and gpus.none_on_bus)):
            return not_applicable("no serving engine and no GPU in this container")
        cg = cgroup_limits
        if cg is None:
            return unknown("the container's cgroup CPU limits are not in this source",
                           hint="run `cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu.stat "
                           "/sys/fs/cgroup/cpuset.cpus.effective` in the container")
        problems: list[str] = []
        limit = cg.cpu_limit
        cpuset = cg.cpuset_cpus
        effective = min(x for x in (limit, float(len(cpuset)) if cpuset else None) if x is not None) \
            if (limit is not None or cpuset) else None
        actual = {"cpu_quota": f"{limit:g} CPUs" if limit is not None else "none",
                  "cpuset": len(cpuset) if cpuset else None, "nr_throttled": cg.nr_throttled,
                  "nr_periods": cg.nr_periods, "cgroup": f"v{cg.version}"}
        if effective is not None and effective < need:
            problems.append(f"{effective:g} CPUs for {basis} (heuristic minimum {need}: API server, engine core, "
                            "one per TP worker, tokenizer)")
        ratio = cg.throttled_ratio
        if ratio is not None and cg.nr_throttled and ratio >= 0.01:
            problems.append(f"CFS-throttled in {cg.nr_throttled} of {cg.nr_periods} periods ({ratio:.1%}) since the "
                            "cgroup started")
        if cpuset and numa is not None and gpu_nodes:
            nodes = numa.nodes_of(cpuset)
            if nodes and not nodes & gpu_nodes:
                problems.append(f"the cpuset is on NUMA node(s) {sorted(nodes)}, the GPUs on {sorted(gpu_nodes)}")
        if problems:
            return issue("; ".join(problems) + " (thresholds are heuristics)", actual=actual,
                         expected=f">= {need} CPUs, no throttling, GPU-local cores", subjects=("cpu",),
                         evidence=list(cg.sources))
        return ok(f"CPU limit {actual['cpu_quota']}, cpuset {actual['cpuset'] or 'all'}, "
                  f"throttled {cg.nr_throttled if cg.nr_throttled is not None else 'n/a'} periods ({basis})",
                  actual=actual)
    findings = []
    subjects = []
    tests: list[str] = []
    for c in docker_containers.gpu_or_serving if docker_containers else ():
        sizes = parallelism.for_container(c.id) if parallelism is not None else None
        c_need = ((sizes.tp if sizes is not None else None) or c.gpu_count or 1) + 4
        cpus = [x for x in (c.cpu_limit, float(len(c.cpuset)) if c.cpuset else None) if x is not None]
        if cpus and min(cpus) < c_need and c.diagnostic_only:
            # The minimum is an engine's (API server, engine core, workers); a GPU check that exits needs one.
            tests.append(f"container {c.label}: {min(cpus):g} CPUs, but it only runs a GPU check or a wait "
                         f"({' '.join(c.argv)[:60] or c.image}), not an engine")
        elif cpus and min(cpus) < c_need:
            findings.append(f"{min(cpus):g} CPUs in container {c.label} (heuristic minimum {c_need})")
            subjects.append(c.label)
        if c.cpuset and numa is not None and gpu_nodes:
            nodes = numa.nodes_of(c.cpuset)
            if nodes and not nodes & gpu_nodes:
                findings.append(f"cpuset of container {c.label} on NUMA node(s) {sorted(nodes)}, GPUs on "
                                f"{sorted(gpu_nodes)}")
                subjects.append(c.label)
    for cfg in lxc_configs.configs if lxc_configs else ():
        if cfg.gpu_intent and cfg.cpus is not None:
            n_gpus = len([p for p in cfg.exposed_paths() if p.startswith("/dev/nvidia") and p[11:].isdecimal()])
            c_need = max(n_gpus, 1) + 4
            if cfg.cpus < c_need:
                findings.append(f"{cfg.cpus:g} cores for {n_gpus} GPU(s) in LXC {cfg.name} (heuristic minimum {c_need})")
                subjects.append(cfg.name)
    if findings:
        # Two runs of one image (corpus 1959: `--cpus=4.0`, then `--cpuset-cpus=0-3`) say one finding once.
        findings, subjects = list(dict.fromkeys(findings)), list(dict.fromkeys(subjects))
        return issue("; ".join(findings) + " (thresholds are heuristics)", actual=findings,
                     expected="about TP + 4 GPU-local CPUs per serving container", subjects=subjects)
    seen = len(docker_containers.gpu_or_serving if docker_containers else ()) + len(
        [c for c in (lxc_configs.configs if lxc_configs else ()) if c.gpu_intent])
    cut = [c for c in (docker_containers.containers if docker_containers else ()) if c.excerpt
           and c not in docker_containers.gpu_or_serving] if docker_containers else []
    if tests:
        return not_an_issue("; ".join(tests), actual=tests, expected="about TP + 4 CPUs where an engine runs")
    if not seen and cut:
        # Its GPU requests and CPU limits may lie outside the cut: no proof that no GPU container exists.
        return unknown(f"a `docker inspect` excerpt ({cut[0].label.strip('()')}): whether it is a GPU container, and its CPU "
                       "limits, lie partly outside the excerpt", hint="paste the whole `docker inspect <container>`")
    if not seen:
        return not_applicable("not in a container and no GPU containers to read")
    return ok(f"{seen} GPU container(s) have enough CPUs (heuristic TP + 4)")


# --- CTR-K8S-GPU-TOPOLOGY --------------------------------------------------------------------


@check(
    "CTR-K8S-GPU-TOPOLOGY",
    title="Kubernetes assigns GPUs that are not P2P/NVLink-connected",
    severity="medium",
    confidence="documented",
    fix=advice("Redeploy on GPUs of one NUMA node: topology-aware allocation (device plugin / DRA, kubelet "
                   "topologyManagerPolicy single-numa-node), node labels, or request all 8 GPUs and split with "
                   "CUDA_VISIBLE_DEVICES", cost="restart", scope="container"),
    references=(K8S_TOPOLOGY, "https://nvidia.github.io/TensorRT-LLM/legacy/advanced/lowprecision-pcie-allreduce.html"),
)
def k8s_gpu_topology(container: ContainerInfo, gpu_devices: GpuDeviceAccess | None = None,
                     pci: PciDevices | None = None, docker_containers: DockerContainers | None = None,
                     k8s_nodes: K8sNodes | None = None, stated_pod_gpus: StatedPodGpus | None = None) -> Outcome:
    """Reads: inside a pod the /dev/nvidiaN nodes and /proc/driver/nvidia/gpus/<bdf> of the pod's
    GPUs, and every NVIDIA GPU's and NVSwitch's NUMA node on the PCI bus.

    Bad value: the pod's GPUs span NUMA nodes (`SYS` in `nvidia-smi topo -m`) while one node holds
    enough GPUs for the whole set.

    Why: NCCL disables P2P beyond PXB by default on Intel; cross-socket traffic goes through the
    CPU interconnect (TensorRT-LLM documents it as the bottleneck on 8x L20/L40S PCIe nodes).

    Traps: on NVSwitch nodes every pair is NV#-class: placement does not matter. Switch-level
    placement (PIX/PXB vs NODE) needs `nvidia-smi topo -m` in the pod.
    A pasted pod its status shows not scheduled (PodScheduled False, or Pending with no node: `kubectl describe pod`)
    runs on no node and holds no GPU: not applicable (corpus 1837).
    A whole pasted pod spec that asks for no nvidia.com/gpu (no limit, or a limit of 0) is handed no GPU by the device
    plugin: not applicable (corpus 1980); so is a `kubectl describe pod` the paste cuts after its Containers section,
    which shows each container's resources to their end (corpus 2189).
    A pasted node (`kubectl describe node`) whose GPU resources count one device in all (`nvidia.com/gpu: 1`) hands
    no pod two GPUs to place against each other: not applicable (corpus 1908), where each node shown is so.
    A pasted manifest cut before its resources whose pods the user says hold one GPU each (`4 replicas ... with 1 GPU
    each`, facts/k8s_pods.stated_one_gpu_each) places no pair either: not applicable (corpus 2581).
    """
    single = k8s_nodes.single_gpu() if k8s_nodes is not None else ()
    if single and not container.in_container:
        return not_applicable(f"the Kubernetes node{'s' if len(single) > 1 else ''} shown offer"
                              f"{'' if len(single) > 1 else 's'} one GPU device in all ("
                              + K8sNodes.device_lines(single) + "): no pod is handed GPUs to place against each other")
    if container.kind != "kubernetes":
        specs = [c for c in docker_containers.containers if c.origin == ORIGIN_K8S] if docker_containers else []
        if specs and not container.in_container and all(c.unscheduled for c in specs):
            # A pod the scheduler has not placed runs on no node: it holds no GPU whose placement could be judged.
            return not_applicable("the pasted pod is not scheduled (PodScheduled False, or Pending with no node): "
                                  "its containers (" + ", ".join(c.label for c in specs[:3]) + ") hold no GPU yet, "
                                  "so no GPU set of theirs is placed across NUMA nodes")
        pods = [c for c in specs if c.gpu_requested]
        if specs and not pods and not container.in_container and not any(c.excerpt and not c.resources_whole
                                                                             for c in specs):
            # A pod spec showing its containers' resources whole without a GPU limit (or with `nvidia.com/gpu: "0"`,
            # corpus 1980) is handed no GPU by the device plugin: it has none whose placement the scheduler chose.
            return not_applicable("the pasted pod spec asks for no nvidia.com/gpu (" + ", ".join(
                c.label for c in specs[:3]) + "): the device plugin hands its containers no GPU to place")
        if pods and not container.in_container and all(c.gpu_count == 1 for c in pods):
            # Each container's processes see only the GPU it asked for: one GPU has no peer to be placed against.
            return not_applicable("a pasted pod spec asks for one GPU per container (" + ", ".join(
                f"{c.label}: 1" for c in pods[:3]) + "): no container has GPUs to place against each other")
        if pods and not container.in_container:  # a pasted pod spec, read from outside the pod
            return unknown("a pasted pod spec asks for GPUs (" + ", ".join(
                f"{c.label}: {c.gpu_count or '?'}" for c in pods[:3]) + "); the node's GPU topology and which "
                "GPUs the pod got are not in this source", hint="run `nvidia-smi topo -m` in the pod")
        if container.outside_spec == "kubernetes" and stated_pod_gpus is not None and not container.in_container:
            return not_applicable(f"the user says each pod holds one GPU (\"{stated_pod_gpus.line[:160]}\"): no pod "
                                  "has GPUs to place against each other")
        if container.outside_spec == "kubernetes":  # a pasted manifest whose containers are cut off
            return unknown("a pasted Kubernetes manifest: its GPU requests and the node's GPU topology are not in "
                           "this source", hint="run `nvidia-smi topo -m` in the pod")
        return not_applicable("not in a Kubernetes pod")
    dev = gpu_devices
    if dev is None or dev.nodes is None:
        return unknown("the pod's GPUs are not in this source", hint="run `nvidia-smi topo -m` in the pod")
    count = len(dev.gpu_nodes)
    if count < 2:
        return not_applicable(f"{count} GPU in the pod: nothing to place")
    if pci is not None and any(d.vendor == "0x10de" and d.pci_class.startswith("0x0680") for d in pci.devices):
        return not_an_issue("NVSwitch node: every GPU pair is NVLink-connected, placement does not matter",
                            actual=f"{count} GPUs")
    if pci is None or dev.proc_gpus is None or len(dev.proc_gpus) != count:
        return unknown(f"{count} GPUs in the pod; which ones could not be matched to the PCI bus",
                       hint="run `nvidia-smi topo -m` in the pod: SYS/NODE between its GPUs while PIX/PXB/NV# "
                       "sets exist on the node is the issue")
    by_bdf = {g.bdf.lower(): g for g in pci.nvidia_gpus}
    pod = [by_bdf.get(b.lower()) for b in dev.proc_gpus]
    nodes = {g.numa_node for g in pod if g is not None and g.numa_node is not None}
    if None in pod or not nodes:
        return unknown("the pod's GPUs' NUMA nodes are not readable", hint="run `nvidia-smi topo -m` in the pod")
    per_node: dict[int, int] = {}
    for g in pci.nvidia_gpus:
        if g.numa_node is not None:
            per_node[g.numa_node] = per_node.get(g.numa_node, 0) + 1
    if len(nodes) > 1 and any(n >= count for n in per_node.values()):
        return issue(f"the pod's {count} GPUs span NUMA nodes {sorted(nodes)} (SYS paths) although one node holds "
                     f"{max(per_node.values())} GPUs", actual={b: by_bdf[b.lower()].numa_node for b in dev.proc_gpus},
                     expected="all of the pod's GPUs on one NUMA node / PCIe switch", subjects=list(dev.proc_gpus))
    return unknown(f"the pod's {count} GPUs share NUMA node(s) {sorted(nodes)}; switch-level placement (PIX/PXB vs "
                   "NODE) needs the topology matrix", hint="run `nvidia-smi topo -m` in the pod",
                   subjects=list(dev.proc_gpus))
