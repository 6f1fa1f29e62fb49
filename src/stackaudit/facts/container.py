"""Where the audit runs: bare metal/VM host, or inside Docker, Podman, LXC, Kubernetes, nspawn."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.docker import AIO_SMI_RAN, NGC_CHECK
from stackaudit.facts.engine_command import EngineCommands
from stackaudit.facts.processes import parse_environ
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.serving_logs import (
    CONTAINER_HOSTNAME,
    TGI_NO_IMAGE,
    NcclTestRuns,
    ServingLog,
    is_pod_name,
)
from stackaudit.facts.shm import parse_df_table, read_df
from stackaudit.facts.sources import (
    COMPOSE_FILE,
    DF_TABLES,
    DOCKER_INSPECT,
    DOCKER_INSPECT_EXCERPT,
    DOCKER_PS,
    DOCKER_RUN,
    ENGINE_COMMAND,
    ENGINE_LOG,
    EVIDENCE_LINES,
    K8S_NODE,
    K8S_SPEC,
    LOG_LINE_PROGRAMS,
    PROCESS_TREE,
    PROMPT_ENVS,
    PROMPT_HOSTS,
    SHM_PATH,
    USER_ENGINES,
)
from stackaudit.host.base import Host, NotCaptured, Reads, list_or_none


@dataclass(frozen=True)
class ContainerInfo:
    kind: str  # "" when not in a container, else docker, podman, lxc, kubernetes, systemd-nspawn, apptainer or container
    evidence: tuple[str, ...] = ()
    cgroup_version: int | None = None
    # The commands the source shows typed inside the container (at a prompt that names it): what they printed is the
    # container's own view.
    ran_inside: tuple[str, ...] = ()
    # The NVIDIA device plugin's own line showing it reached the GPUs through NVML (PLUGIN_REACHED), "" where none.
    plugin_reached: str = ""
    # The device plugin's last own line where its log in the source never shows it reaching the GPUs (no
    # PLUGIN_REACHED line, no device health event, which it sends only for GPUs it serves): it offered no GPU there
    # (corpus 1387: its config dump, then `Retreiving plugins.`, then a crash loop). "" where no such log is shown.
    plugin_short: str = ""
    # A `minikube start` that runs the Kubernetes node as a Docker or Podman container given no GPU (MINIKUBE_START,
    # minikube_node), "" where none is shown.
    node_without_gpus: str = ""
    # Where a pasted spec describes the container from outside (kind ""): the commands the source shows run in a
    # container by `docker exec` / `kubectl exec` or typed at a prompt that names one, each (its target, the command run
    # there); what they printed is that container's own view.
    exec_into: tuple[tuple[str, str], ...] = ()
    # Where a pasted spec describes the container from outside (kind ""): the distinct hosts whose shell prompts run
    # nvidia-smi (`root@8pxb:~# nvidia-smi topo -m`, `root@9pxb:~# ...`: two pods' GPUs, corpus 2380), in order.
    gpu_prompt_hosts: tuple[str, ...] = ()
    # GKE's driver installer (its device plugin pod's init container) shown ending in its wait for driver libraries
    # that no one installs (GKE_INSTALLER_LINE), its lines joined; "" where none is shown or the plugin reached the GPUs.
    driver_wait: str = ""
    # The source shows the program itself run on the machine, outside any container (kind ""): a build tree or Python
    # environment of the user's own (or one activated at the machine's prompt), a systemd unit's ExecStart, a prompt of a Windows-named host, a
    # `which nvidia-smi` answered from WSL's driver mount, the machine's own shell (MACHINE_SHELL), `ollama serve` typed
    # at a prompt, a Slurm job's own children, the engine's own lines in the host's journal, the user's words or issue
    # form (evidence[0] says which). Not set for a container host seen from outside (a pasted spec, `docker inspect`).
    on_host: bool = False
    # Of on_host: the program runs as a systemd service of the machine (a unit's ExecStart, the engine's own lines in
    # the journal, the user's or the journal's words that start its service): systemd does not run in an engine's
    # container, so this is the machine itself.
    as_service: bool = False

    @property
    def in_container(self) -> bool:
        return bool(self.kind)

    @classmethod
    def ran_on_host(cls, why: str, *, as_service: bool = False,
                    exec_into: tuple[tuple[str, str], ...] = ()) -> ContainerInfo:
        """The program shown run on the machine itself, outside any container (on_host), `why` its evidence."""
        return cls("", (why,), None, on_host=True, as_service=as_service, exec_into=exec_into)

    @property
    def outside_spec(self) -> str:
        """Where a pasted spec describes a container from outside it: "kubernetes" for a pod or deployment
        spec, "docker" for docker inspect / docker run / compose; "" otherwise."""
        spec = next((e for e in self.evidence if e.endswith(_OUTSIDE)), "") if not self.kind else ""
        return "" if not spec else "kubernetes" if "Kubernetes" in spec else "docker"


# Mounts only a container has: runtimes bind-mount /etc/hostname, /etc/hosts and /etc/resolv.conf
# from their own state directories (mountinfo field 4 is the root of the mount inside its fs).
_MOUNT_MARKERS = (
    ("/kubelet/pods/", "kubernetes"),
    ("/docker/containers/", "docker"),
    ("/overlay-containers/", "podman"),
    ("/containers/storage/", "podman"),
)
_OUTSIDE = "describes the container from outside it"
_BIND_TARGETS = ("/etc/hostname", "/etc/hosts", "/etc/resolv.conf")
# A Kubernetes persistent volume: dynamic provisioners name volumes `pvc-<uid>`.
_K8S_PVC = re.compile(r":/pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def _mountinfo_kind(mountinfo: str) -> tuple[str, str]:
    """(kind, evidence) from the bind mounts a container runtime makes, or ("", "")."""
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[4] not in _BIND_TARGETS:
            continue
        for marker, kind in _MOUNT_MARKERS:
            if marker in fields[3]:
                return kind, f"{fields[4]} is bind-mounted from {fields[3]}"
    return "", ""


def _df_kind(df_text: str) -> tuple[str, str]:
    """For pasted sources without container markers: what `df` shows (overlay root, a k8s PVC)."""
    try:
        rows = parse_df_table(df_text)
    except ParseError:
        return "", ""
    if any(_K8S_PVC.search(r.filesystem) for r in rows):
        return "kubernetes", "df shows a Kubernetes persistent volume (pvc-<uid>)"
    if any(r.filesystem == "overlay" and r.mounted_on == "/" for r in rows):
        return "container", "df shows an overlay root filesystem"
    # Docker, Podman and containerd's CRI mount a tmpfs named `shm` on a container's /dev/shm; a host's is `tmpfs`.
    if any(r.filesystem == "shm" and r.mounted_on in (SHM_PATH, "") for r in rows):
        return "container", "df shows /dev/shm as a container runtime's `shm` mount"
    return "", ""


# Mounts a df table shows only from the machine itself: its boot partitions and EFI variables (`/boot`, `/boot/efi`,
# `/sys/firmware/efi/efivars`), which no container runtime mounts into a container, and the merged root of a
# container seen from outside (`/var/lib/docker/overlay2/<id>/merged`, Podman's `/var/lib/containers/storage/overlay/`):
# the df was run on the host (ollama/ollama#6433, corpus 2717: `root@ollama` lists them beside its LVM root).
_HOST_SIDE_MOUNT = re.compile(r"^(?:/boot(?:/efi)?|/sys/firmware/efi/efivars|/var/lib/docker/overlay2/[0-9a-f]{12,64}/"
                              r"merged|/var/lib/containers/storage/overlay/[0-9a-f]{12,64}/merged)$")


def _df_host_side(df_text: str) -> str:
    """The mount a whole df table shows that only the machine itself has (_HOST_SIDE_MOUNT); "" where none, or where
    the table's root is a container's (_df_kind)."""
    try:
        rows = parse_df_table(df_text)
    except ParseError:
        return ""
    if _df_kind(df_text)[0]:
        return ""
    return next((r.mounted_on for r in rows if _HOST_SIDE_MOUNT.match(r.mounted_on)), "")


# The kernel's OOM report names the cgroup of the process it killed (`oom-kill:...,task_memcg=/user.slice/user-1000.slice/
# session-4.scope,task=cicc,...`, vllm-project/vllm#38117, corpus 2715): a login session's scope under systemd's
# user.slice holds what was typed in that session on the machine. A container's memcg is its runtime's (a Docker
# container's `/system.slice/docker-<id>.scope` or `/docker/<id>`, a pod's `kubepods`, a rootless one's under
# `user@1000.service`), never a session scope. The killed task must be the engine's, or a compiler it runs (CUDA's cicc
# and ptxas, nvcc, a JIT's gcc): another program killed in a session says nothing of where the engine runs.
_SESSION_OOM_KILL = re.compile(r"(?<![\w-])oom-kill:[^\s,]{0,60}(?:,[^\s,]{1,120}){0,12}?,task_memcg=(/user\.slice/user-\d+\.slice/session-[\w.-]{1,40}\.scope),"
                               r"task=(VLLM::\w{1,20}|python[\d.]{0,5}|vllm|sglang[\w.-]{0,20}|ollama[\w.-]{0,20}|llama-server|"
                               r"cicc|ptxas|nvcc|cc1plus|tritonserver|text-generation[\w.-]{0,20}|lmdeploy),")


def _session_oom_engine(ctx: FactContext) -> str:
    """The kernel log's OOM report of an engine's process, or of a compiler it runs, killed in a login session's scope
    (_SESSION_OOM_KILL), as `cicc in /user.slice/.../session-4.scope`; "" where none."""
    from stackaudit.facts.system import KernelLog

    log = ctx.optional("kernel_log", KernelLog)
    if log is None:
        return ""
    for line in log.grep(_SESSION_OOM_KILL.pattern, flags=0, needles=("task_memcg=/user.slice/",)):
        if (m := _SESSION_OOM_KILL.search(line)) is not None:
            return f"{m.group(2)} in {m.group(1)}"
    return ""


# A serving engine's own program tag with its PID in a journal or syslog line (`ollama[285585]:`): journald took the
# engine's output as a process of the machine whose journal it is, as a systemd service does (Ollama's Linux install
# runs `ollama serve` as ollama.service). Docker's journald log driver tags a container's lines with its ID instead.
# So does a program whose lines the paste reads at work on the GPU beside an engine or in its place: LocalAI's binary
# install (its install.sh writes local-ai.service, corpus 1976), llama-swap in front of llama-server (corpus 835), and a
# Prometheus exporter of GPU metrics (nvidia_gpu_exporter, dcgm-exporter: a name that holds nvidia, gpu or dcgm and
# exporter, corpus 2404's prometheus-nvidia-exporter-2 under /system.slice). NVIDIA's own daemons (nvidia-persistenced,
# the Fabric Manager) are not among them: they run on the host whatever runs the workload.
_HOST_ENGINE = re.compile(r"^(?:ollama|vllm|llama-server|text-generation-launcher|sglang|tritonserver|lmdeploy|"
                          r"local-ai|llama-swap|(?=[\w.-]{0,60}?(?:nvidia|gpu|dcgm))[\w.-]{0,60}?exporter[\w.-]{0,20})"
                          r"\[\d+\]$", re.I)


# A desktop session's own program tag in a journal line: the display manager (`gdm3[7055]:`, gdm, sddm, lightdm), the
# desktop shell, or an XDG autostart entry the session starts (`nvidia-settings-autostart.desktop[2777]:`, corpus
# 2469). A container runs no display manager and no login session of the machine's: the journal is the machine's own.
_DESKTOP_SESSION = re.compile(r"^(?:gdm3?|gdm-[\w-]{1,30}|sddm|lightdm|gnome-shell|gnome-session[\w-]{0,30}|plasmashell|"
                              r"[\w.-]{1,60}\.desktop)\[\d+\]$")


# The user's words that the engine whose log they paste runs in a container: `Ollama container logs` (ClaraVerse#49),
# `The ollama docker log:` and `I deployed ollama with docker` (ollama/ollama#6840), `Ollama is running inside a Docker
# CE container` (ollama/ollama#12173). Each row: the words around the engine's name, and the runtime they name.
# A word before the engine's name that undoes it (`without`, `instead of`, `outside`) is no such statement.
_ENGINE_WORDS = r"(?:ollama|vllm|sglang|llama[.-]?cpp|llama-server|tgi|text-generation-inference)"
STATED_CONTAINER_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b{_ENGINE_WORDS}(?:'s)? (?:docker|container) logs?\b", re.I), "container"),
    # `I run ollama with docker by command:` (ollama/ollama#5453), `trying to setup ollama within docker`
    # (ollama/ollama#8674), `I am using ollama from docker` (ollama/ollama#6933).
    (re.compile(rf"\b(?:deployed|deploy|deploying|started|start|starting|running|run|runs|set ?up|setting up|using|"
                rf"use|used) {_ENGINE_WORDS} (?:with|in|inside|within|via|using|on|from) (?:a |the )?docker\b", re.I),
     "docker"),
    # The engine's name before `docker` as the thing run: `When I run Ollama docker` (corpus 1330).
    (re.compile(rf"\b(?:run|runs|running|ran|start|started|starting|deploy|deployed) (?:the |my |an? )?{_ENGINE_WORDS} "
                r"docker\b(?! (?:desktop|engine|compose|daemon|hub|version|build)\b)", re.I), "docker"),
    (re.compile(rf"\b{_ENGINE_WORDS} (?:is |was )?(?:running |runs |deployed )?(?:in|inside) (?:a |the )?"
                r"(?:docker|podman|container)\b", re.I), "container"),
    # The engine's image named as the container the user worked in: `I entered my ollama/ollama container terminal`
    # (corpus 1165), `inside the vllm/vllm-openai:latest container`.
    (re.compile(rf"\b(?:my|our|the|an?|in|inside|into|within|entered) (?:[\w.-]+/)?{_ENGINE_WORDS}(?:[\w.-]*)"
                rf"(?::[\w.-]+)? (?:docker |podman )?container\b", re.I), "container"),
    # Kubernetes runs every workload in a pod's containers: `an OLLAMA server running in a K8s implementation`
    # (ollama/ollama#8179), `vllm deployed on kubernetes`, `ollama in a k8s pod`.
    (re.compile(rf"\b{_ENGINE_WORDS}(?: server| instance| deployment)? (?:is |was )?(?:running |runs |deployed )?"
                r"(?:in|inside|on|within) (?:an? |the |my |our )?(?:k8s|k3s|kubernetes)\b", re.I), "kubernetes"),
    # Any program the user ran there: `I can't get the docker image to run anything nvidia`, `the containers drivers`
    # (k4yt3x/video2x#1226), `inside the container nvidia-smi says`.
    (re.compile(r"\b(?:get|got|make|made) (?:the|this|my) (?:docker |podman )?(?:image|container) to run\b|"
                r"\bthe containers?'?s? (?:drivers?|libraries)\b|"
                r"\b(?:in|inside|within) (?:the|this|my) (?:docker |podman )?container\b", re.I), "container"),
)
_UNDONE = re.compile(r"\b(?:without|instead of|outside(?: of)?|not in|rather than|natively)\b", re.I)
# The user's label for the nvidia-smi they paste, saying it ran in a container: `nvidia-smi **from inside the ollama
# container**:` (corpus 1856), `run nvidia-smi cmd on container` (ollama/ollama#4726), `Output of nvidia-smi inside the
# container:`. What it printed is the container's own view, as at a prompt that names the container. A question
# (`does nvidia-smi report the GPU?`) or a line that undoes it (`outside the container`) is no such label.
STATED_SMI_INSIDE = re.compile(r"\bnvidia-smi\b(?!\s+(?:--version|-h\b|--help|topo\b|nvlink\b))[^?\n]{0,24}?\b"
                               r"(?:in|inside|within|on|from inside|from within|in side) (?:of )?(?:the |my |this |a |an )?"
                               r"(?:[\w.-]+/)?[\w.:-]*\s?(?:docker |podman )?container\b(?![^?\n]*\?)", re.I)


def stated_container(line: str) -> tuple[str, str]:
    """(kind, the words) where a line of the user's words says the program whose output they paste ran in a
    container (STATED_CONTAINER_WORDS, or a label of nvidia-smi run there: STATED_SMI_INSIDE), else ("", "")."""
    for pattern, kind in (*STATED_CONTAINER_WORDS, (STATED_SMI_INSIDE, "container")):
        m = pattern.search(line)
        if m and not _UNDONE.search(line[:m.end()]):
            return kind, m.group(0)
    return "", ""


def _stated_container(host: Host) -> tuple[str, str]:
    """(kind, evidence) where the user's words say the program whose output they paste ran in a container."""
    try:
        text = host.doc(USER_ENGINES.name)
    except NotCaptured:
        return "", ""
    for line in text.splitlines():
        kind, words = stated_container(line)
        if kind:
            return kind, f"the user's words put the program in a container: \"{words}\""
    return "", ""


def _stated_smi_inside(host: Host) -> str:
    """The user's label that the nvidia-smi they paste ran in a container (STATED_SMI_INSIDE), or ""."""
    try:
        text = host.doc(USER_ENGINES.name)
    except NotCaptured:
        return ""
    return next((m.group(0) for line in text.splitlines()
                 if (m := STATED_SMI_INSIDE.search(line)) and not _UNDONE.search(line[:m.end()])), "")


# The NVIDIA Kubernetes device plugin's own log lines, under klog's head (`I1019 06:25:03.801505  1 main.go:154]`) or
# Go's log time (`2020/10/14 18:04:53`): its start lines, its resource discovery (`No valid resources detected`,
# `Detected non-NVML platform`, corpus 1196) and its health events (`XidCriticalError: Xid=69 on Device=GPU-…, the
# device will go unhealthy`, `'nvidia.com/gpu' device marked unhealthy`, corpus 1200). The plugin runs only as a pod of
# its DaemonSet: its lines show a program that ran in a container.
# Its health events: a device it marks unhealthy (PLUGIN_UNHEALTHY), one alternation for both patterns.
_PLUGIN_HEALTH = r"XidCriticalError: Xid=\d+ on Device=|'nvidia\.com/[\w.-]+' device marked unhealthy"
DEVICE_PLUGIN_LINE = re.compile(
    r"(?:^[IWE]\d{4} [\d:.]+\s+\d+ \w+\.go:\d+\]|^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d)\s+"
    r"(?:Starting (?:FS watcher|OS watcher|Plugins|GRPC server for 'nvidia\.com/)|Loading NVML|"
    r"Loading configuration|Running with config:|Retr(?:ie|ei)ving plugins|"
    r"Registered device plugin (?:for 'nvidia\.com/|with Kubelet)|No devices found\. Waiting indefinitely|"
    r"No valid resources detected|Detected (?:non-)?NVML platform|" + _PLUGIN_HEALTH + ")")
# GKE's own device plugin (GoogleCloudPlatform/container-engine-accelerators, cmd/nvidia_gpu, the DaemonSet
# `nvidia-gpu-device-plugin` in kube-system), under klog's head (`I0518 15:07:21.825159  1 nvidia_gpu.go:75]`, F for its
# fatal lines): its start (`device-plugin started`, `Reading GPU config file`, `Using gpu config: {7g.40gb 0 ...}`),
# NVML's start failing (`failed to initialize nvml:`), its device manager's retries (`failed to start GPU device
# manager:`), the GPUs and MIG partitions it finds (`Found Nvidia GPU "nvidia0"`, `Discovered GPU partition:
# nvidia0/gi0`, mig.go), its kubelet registration (corpus 1458, container-engine-accelerators#296) and its metrics'
# NVML (`nvml initialized successfully. Driver version: 450.80.02`, container-engine-accelerators#194; `GPU utilization
# for device GPU-<uuid>, nvml return code: 3. Skipping this device`, quoted without its head in corpus 1458).
_GKE_NVML = (r"nvml initialized successfully\b|"
             r"GPU utilization for device GPU-[0-9a-fA-F-]+, nvml return code: \d+\. Skipping this device")
GKE_PLUGIN_LINE = re.compile(
    r"^[IWEF]\d{4} [\d:.]+\s+\d+ \w+\.go:\d+\]\s+"
    r"(?:device-plugin (?:started|registered with the kubelet|server started serving)|Reading GPU config file:|"
    r"Using gpu config:|failed to initialize nvml:|failed to start GPU device manager:|Found Nvidia GPU \"|"
    r"Discovered GPU partition: nvidia\d+/gi\d+|starting device-plugin server at:|"
    r"Using multi-instance GPU, metrics are not supported|" + _GKE_NVML + r")|^\s*(?:" + _GKE_NVML + ")")
# The GPU Operator's toolkit container (the nvidia-container-toolkit DaemonSet's `toolkit` / `nvidia-ctk-installer`),
# in logrus's form (`time="2024-05-02T13:08:53Z" level=info msg="Starting 'setup' for containerd"`): it installs the
# toolkit under /usr/local/nvidia/toolkit on the node, rewrites the node runtime's config from the host path the
# operator mounts at /runtime/config-dir and signals the runtime to reload it (corpus 1442, NVIDIA/gpu-operator#712;
# `Starting nvidia-toolkit`, its install under /usr/local/nvidia/toolkit: NVIDIA/gpu-operator#415, #448).
# It runs only as that pod; its lines show that the runtime is being set up, not that any pod got a GPU.
TOOLKIT_LINE = re.compile(
    r"\blevel=\w+ msg=\"?(?:Starting '(?:setup|cleanup)' for \w+|Completed '(?:setup|cleanup)' for \w+|"
    r"Starting nvidia-toolkit\b|Setting up runtime|[^\"]{0,80}'?/usr/local/nvidia/toolkit\b|"
    r"Loading config from /runtime/|Flushing config to /runtime/|Sending SIGHUP signal to (?:containerd|docker|crio)|"
    r"Successfully signaled (?:containerd|docker|crio)|Shutting down runtime)")
# The GPU Operator's validator pod as the log reader names it: its container's name before each line (`cuda-validation
# Failed to allocate device vector A ...`, k9s and stern; `[pod/nvidia-cuda-validator-r6nsb/cuda-validation] ...`,
# `kubectl logs --prefix`), or kubectl's end of its stream (`stream closed EOF for
# gpu-operator/nvidia-cuda-validator-r6nsb (cuda-validation)`, corpus 1172). The validators run only as pods. GPU
# Operator 1.x's toolkit pod waits for the driver in its init container driver-validation, a shell loop around
# nvidia-smi that prints `waiting for nvidia drivers to be loaded` each turn (corpus 1295).
VALIDATOR_LINE = re.compile(r"^\s*(?:\[pod/nvidia-[\w-]*validator[\w-]*/)?(?:cuda|plugin|driver|toolkit)-validation\]?\s+\S|"
                            r"\bstream closed(?: EOF)? for [\w.-]+/nvidia-[\w-]*validator|"
                            r"^\s*waiting for nvidia drivers to be loaded\s*$|"
                            # its driver check run in the driver container's root (`running command chroot with args
                            # [/run/nvidia/driver nvidia-smi]`, gpu-operator#378)
                            r"^\s*running command chroot with args \[/run/nvidia/driver\s")
# The device plugin's own lines that show it reached the GPUs through NVML: its resource factory found the NVML
# library (`Detected NVML platform: found NVML library`, 0.15 and later, internal/rm/factory.go), or it registered its
# resource with the kubelet (`Registered device plugin for 'nvidia.com/gpu' with Kubelet`), which it does only after
# NVML listed the GPUs it serves (corpus 1289, 1290). Its 1.0.0 betas say `Registered device plugin with Kubelet`
# after `Loading NVML` and `Fetching devices.`: their main.go waits forever where nvml.Init fails (corpus 2064). A device it marks unhealthy is no such proof.
# GKE's plugin: its metrics' NVML answering (_GKE_NVML: initialised, or a reading of a GPU its UUID names), or a MIG
# partition it found (the driver's /proc/driver/nvidia/capabilities and the partition's device nodes; its releases since
# 2022 initialise NVML first and exit where that fails, and only GKE's gpu_config asks partitions). Its `Found Nvidia GPU
# "nvidia0"` and kubelet registration are no such proof: they follow a walk of /dev alone, and the libraries it mounts
# come from GKE's host path (NVIDIA/k8s-device-plugin#250: that plugin on a node of another cluster registered nvidia0,
# and its pods got no driver library).
PLUGIN_REACHED = re.compile(r"\bDetected NVML platform: found NVML library|"
                            r"\bRegistered device plugin (?:for 'nvidia\.com/[\w.-]+' )?with Kubelet|"
                            r"\.go:\d+\]\s+Discovered GPU partition: nvidia\d+/gi\d+|" + _GKE_NVML)
PLUGIN_UNHEALTHY = re.compile(r"\b" + _PLUGIN_HEALTH)
# GKE's driver installer, the init container `nvidia-driver-installer` of its device plugin's pod
# (`nvidia-gpu-device-plugin-small-cos-*`): on a node whose GPU driver GKE is not told to install (no
# gpu-driver-version, or a node pool made before it, Node Auto-Provisioning among them) it says so and waits for driver
# libraries someone else installs; until they come, the pod stays in Init and the node offers no nvidia.com/gpu
# (GoogleCloudPlatform/container-engine-accelerators#402, #407; corpus 1585).
GKE_INSTALLER_LINE = re.compile(r"^\s*(?:GPU driver auto installation is disabled\.?|"
                                r"Waiting for GPU driver libraries to be available\.?)\s*$")
GKE_INSTALLER_WAITS = re.compile(r"^\s*Waiting for GPU driver libraries to be available\b")


# `minikube start` with the docker or podman driver (`--driver=docker`, `--vm-driver docker`, `-d podman`): the
# Kubernetes node is itself a container of the host's runtime (minikube's "kic" node), and its pods run under the
# node's own containerd or Docker. The node reaches the host's GPUs only where it is started with `--gpus`
# (minikube 1.32 and later, docker driver: the node container gets the GPUs and the NVIDIA Container Toolkit
# installed inside it); without it no runtime setting on the host (its /etc/containerd/config.toml, its Docker
# default runtime) reaches the pods, and the device plugin in the node finds no NVML
# (https://minikube.sigs.k8s.io/docs/tutorials/nvidia/; kubernetes/minikube#10229, #17314; NVIDIA/k8s-device-plugin#478,
# corpus 1345; ehfd/nvidia-dind#2).
MINIKUBE_START = re.compile(r"\bminikube\s+start\b(?=.*?(?:\s--(?:vm-)?driver[=\s]+|\s-d\s+)[\"']?(docker|podman)\b)")
_MINIKUBE_GPUS = re.compile(r"\s--gpus\b")


def minikube_node(line: str) -> tuple[str, bool] | None:
    """(the command, whether it gives the node GPUs) where a line is `minikube start` with a container driver
    (MINIKUBE_START); None otherwise.

    >>> minikube_node("k8s : minikube start --kubernetes-version=v1.25.16 --force --driver=docker")
    ('minikube start --kubernetes-version=v1.25.16 --force --driver=docker', False)
    >>> minikube_node("minikube start --driver docker --container-runtime docker --gpus all")
    ('minikube start --driver docker --container-runtime docker --gpus all', True)
    >>> minikube_node("minikube start --driver=kvm2") is None
    True
    """
    m = MINIKUBE_START.search(line)
    if m is None:
        return None
    command = line[m.start():].strip().strip("`")
    return command, _MINIKUBE_GPUS.search(command) is not None


def gpu_stack_pod(line: str) -> str:
    """Which of the Kubernetes GPU stack's pods a log line is the own line of ("the NVIDIA device plugin", GKE's, "the
    GPU Operator's validator", its toolkit container), or ""."""
    if DEVICE_PLUGIN_LINE.search(line):
        return "the NVIDIA device plugin"
    if GKE_PLUGIN_LINE.search(line):
        return "GKE's NVIDIA GPU device plugin"
    if VALIDATOR_LINE.search(line):
        return "the GPU Operator's validator"
    if TOOLKIT_LINE.search(line):
        return "the GPU Operator's toolkit container"
    if GKE_INSTALLER_LINE.search(line):
        return "GKE's NVIDIA driver installer"
    return ""


def _minikube_node(host: Host) -> tuple[str, str, str]:
    """(kind, evidence, the command where it gives the node no GPU) where a pasted `minikube start` runs the
    Kubernetes node as a container (minikube_node): its pods run in containers inside that one."""
    try:
        text = host.doc(EVIDENCE_LINES.name)
    except NotCaptured:
        return "", "", ""
    found = next((n for line in text.splitlines() if (n := minikube_node(line)) is not None), None)
    if found is None:
        return "", "", ""
    command, gpus = found
    return ("kubernetes", f"`{command}` runs the Kubernetes node as a container of the host's runtime (minikube's "
            "docker or podman driver): its pods run inside it", "" if gpus else command)


def _gpu_stack_pod(host: Host) -> tuple[str, str, str, str, str]:
    """(kind, evidence, reached, short, waits) where a pasted line is the device plugin's or a GPU Operator validator's
    own (gpu_stack_pod): each runs only in a pod, so what its lines say was seen from inside a container. `reached`:
    the device plugin's line that shows it reached the GPUs through NVML (PLUGIN_REACHED), "" where none is shown or it
    marks a device unhealthy. `short`: the device plugin's last own line where none of its lines shows it reached the
    GPUs or marks a device unhealthy (ContainerInfo.plugin_short), else "". `waits`: GKE's driver installer's lines
    where the last of them waits for the driver libraries and no line shows the plugin reached the GPUs
    (ContainerInfo.driver_wait), else ""."""
    try:
        text = host.doc(EVIDENCE_LINES.name)
    except NotCaptured:
        return "", "", "", "", ""
    lines = [line.strip() for line in text.splitlines() if gpu_stack_pod(line)]
    if not lines:
        return "", "", "", "", ""
    reached = next((line for line in lines if PLUGIN_REACHED.search(line)), "")
    unhealthy = any(PLUGIN_UNHEALTHY.search(line) for line in lines)
    plugin = [line for line in lines if DEVICE_PLUGIN_LINE.search(line) or GKE_PLUGIN_LINE.search(line)]
    short = plugin[-1] if plugin and not reached and not unhealthy else ""
    if unhealthy:
        reached = ""
    installer = [line for line in lines if GKE_INSTALLER_LINE.search(line)]
    waits = " / ".join(installer) if installer and GKE_INSTALLER_WAITS.search(installer[-1]) and not reached else ""
    who = gpu_stack_pod(lines[0])
    return "kubernetes", f"{who}'s own log line (it runs only as a pod): \"{lines[0][:160]}\"", reached, short, waits


# The user's words that they started the engine's server by hand from their own shell (`ran `ollama serve``, corpus
# 1112): ollama's Linux install runs `ollama serve` as ollama.service and its Docker image as the container's
# entrypoint, so a user who types it runs the host install. A line that names a container or a cluster is no such
# statement (STATED_CONTAINER_WORDS reads it). The command may be set in Markdown's code or emphasis (`I run **ollama
# serve** on Ubuntu 22.04.5 LTS`, ollama/ollama#8638, corpus 1634).
STATED_HOST_WORDS = re.compile(r"^\W*(?:i\s+)?(?:then\s+)?(?:ran|run|started|start|running)\s+[`'\"*_]{0,2}"
                               r"ollama serve\b", re.I)
# Or that they start, or read the status of, ollama's systemd service (`when I start the ollama service and get a
# status`, corpus 1204): the unit ollama's Linux install puts on the host (ollama.service); its Docker image runs
# `ollama serve` as the container's entrypoint, with no systemd in it.
STATED_SERVICE_WORDS = re.compile(r"\b(?:start|started|starting|restart|restarted|restarting|enable|enabled|stop|"
                                  r"stopped)\s+(?:the\s+|my\s+)?ollama(?:\.service\b|\s+service\b)", re.I)
# Or that they run ollama's Linux release binary by its path in their own directory (`the protable edition that
# doesn't needs root installation (./ollama-linux-amd64)`, ollama/ollama#6149, corpus 1630): the file its releases
# publish for a manual install (`ollama-linux-amd64`, `ollama-linux-arm64`; https://github.com/ollama/ollama/releases),
# run where it was downloaded. The Docker image runs its own /bin/ollama.
STATED_HOST_BINARY = re.compile(r"(?<![\w/.-])\./ollama-linux-(?:amd64|arm64)\b(?!\.tgz|\.tar)")
# Or that they ran the program shown on bare metal, in the first person (`I've tried baremetal and it works on:`, corpus
# 2357, above the nvidia-smi it ran): frameworks that ship a container image (NeMo RL, NGC) call their install without
# it a bare-metal one. A line that names a container is no such statement (_NAMES_CONTAINER: `on bare metal but not in
# Docker`), and a sentence that compares with bare metal (`25% of baremetal speed`) is not in the first person.
STATED_BARE_METAL = re.compile(r"\bI(?:'ve|\s+have)?\s+(?:tried|tested|ran|run|installed|am\s+running|'m\s+running)\b"
                               r"[^.;!?\n]{0,40}?\bbare[- ]?metal\b", re.I)
# Or Text Generation Inference's issue form, whose `Information` section asks how the launcher was run, two boxes: `- [ ]
# Docker` and `- [X] The CLI directly` (huggingface/text-generation-inference's .github/ISSUE_TEMPLATE/bug-report.yml;
# corpus 1644: `text-generation-launcher` run under nsys, not in Docker). Only the CLI box ticked, with the Docker box
# beside it left empty (form_cli_directly), is that statement: six of the corpus's seven such forms tick Docker.
FORM_CLI_DIRECTLY = re.compile(r"^\s*[-*]\s+\[[xX]\]\s+The CLI directly\s*$")
# Or that they installed the program with a package manager of the desktop or user (`nvtop installed via `brew install
# nvtop``, Syllo/nvtop#318, corpus 2408): Homebrew refuses to run as root, which a container's shell is unless its image
# says otherwise, snap needs snapd under the machine's systemd, and a Flatpak app runs in its own sandbox, not an
# image's. A line that names a container is no such statement (_NAMES_CONTAINER).
STATED_HOST_PACKAGE = re.compile(r"(?<![\w/.-])(?:brew|snap|flatpak)\s+install\s+[\w@.:/-]{1,80}|\binstalled\s+"
                                 r"(?:it\s+)?(?:via|with|using|from|through)\s+[`'\"*_]{0,2}(?:home|linux)?brew\b",
                                 re.I)
# Or that they run the program as an AppImage (`Using appimage`, an LM Studio bug form's answer, corpus 2911;
# `./LM-Studio-0.3.5-x64.AppImage`): a desktop application's one-file Linux package, which mounts its own image
# through FUSE and runs on the desktop session's host, with the host's GPU libraries; a container image installs the
# program unpacked (an AppImage cannot mount its FUSE image in a container without extra privileges).
STATED_APPIMAGE = re.compile(r"\b(?:using|use|uses|used|run|runs|running|ran|launch(?:ed|ing)?|start(?:ed|ing)?|"
                             r"install(?:ed|ing)?|via|from|as|with)\s+(?:(?:the|an?|its)\s+)?(?:[\w.-]+\s+)?"
                             r"appimage\b|(?<![\w/.-])(?:\./)?[\w.+-]{2,80}\.AppImage\b", re.I)
# Or that they installed the program by its project's manual installation (`Installed webui per manual installation,
# including compiling llama-cpp-python using cuBLAS.`, text-generation-webui, corpus 2915; `installed via the manual
# method`): the README's path that installs it in the user's own Python environment on the machine (text-generation-
# webui's `Manual installation using Conda`), beside which a project's container is its `Docker` installation.
STATED_MANUAL_INSTALL = re.compile(r"\binstall(?:ed|ing)?\b[^.;!?\n]{0,40}?\b(?:per|following|according\s+to|via|"
                                   r"using|with|by|through|from)\s+(?:the\s+|a\s+)?(?:full\s+)?manual\s+"
                                   r"(?:install(?:ation)?|method|instructions?)\b", re.I)
_FORM_DOCKER_EMPTY = re.compile(r"^\s*[-*]\s+\[ \]\s+Docker\s*$")
_FORM_DOCKER_TICKED = re.compile(r"^\s*[-*]\s+\[[xX]\]\s+Docker\s*$")

# The user's words that put the program on the host, each with why (`{words}`: the words), in the order they are tried.
STATED_ON_HOST: tuple[tuple[re.Pattern[str], str], ...] = (
    (STATED_HOST_PACKAGE, "the user's words say the program was installed on the machine by its package manager "
                          "(\"{words}\"): Homebrew, snap and Flatpak install on the host, not in a container"),
    (STATED_APPIMAGE, "the user's words say the program runs as an AppImage (\"{words}\"): a desktop application's "
                      "one-file package, run on the machine's own desktop, not in a container"),
    (STATED_MANUAL_INSTALL, "the user's words say the program was installed by its project's manual installation "
                            "(\"{words}\"): its own Python environment on the machine, not the project's container"),
    (STATED_BARE_METAL, "the user's words say the run shown is on bare metal, not in a container: \"{words}\""),
)


def form_cli_directly(lines: Sequence[str], i: int) -> bool:
    """Whether line `i` is TGI's issue form's ticked `The CLI directly` box (FORM_CLI_DIRECTLY) with its `Docker` box,
    within the three lines around it, left empty and no Docker box ticked there."""
    if not FORM_CLI_DIRECTLY.match(lines[i]):
        return False
    near = lines[max(0, i - 3):i + 4]
    return any(_FORM_DOCKER_EMPTY.match(line) for line in near) and not any(_FORM_DOCKER_TICKED.match(line)
                                                                           for line in near)


_NAMES_CONTAINER = re.compile(r"\b(?:docker|podman|containers?|k8s|k3s|kubernetes|pods?|kubectl|lxc|wsl|singularity|"
                              r"apptainer)\b", re.I)


def stated_host(line: str) -> str:
    """The words where a line of the user's words says they started the engine's server from their own shell on the
    host (STATED_HOST_WORDS), as ollama's systemd service (STATED_SERVICE_WORDS) or as its release binary run by path
    (STATED_HOST_BINARY), or that they ran it on bare metal (STATED_BARE_METAL), or installed it with Homebrew, snap or
    Flatpak (STATED_HOST_PACKAGE), or run it as an AppImage (STATED_APPIMAGE), or installed it by its project's manual
    installation (STATED_MANUAL_INSTALL), or TGI's issue form's ticked `The CLI
    directly` box (FORM_CLI_DIRECTLY, which the reader
    records only with the form's Docker box left empty: form_cli_directly), else ""."""
    m = STATED_HOST_WORDS.search(line) or STATED_SERVICE_WORDS.search(line) or STATED_HOST_BINARY.search(line) \
        or FORM_CLI_DIRECTLY.search(line) or STATED_BARE_METAL.search(line) or STATED_HOST_PACKAGE.search(line) \
        or STATED_APPIMAGE.search(line) or STATED_MANUAL_INSTALL.search(line)
    return m.group(0).strip() if m is not None and not _NAMES_CONTAINER.search(line) else ""


# A command run in a container from outside it: `docker exec [options] NAME CMD...` (Podman's and nerdctl's alike), `kubectl
# exec [options] POD -- CMD...` (OpenShift's `oc`). The options that take a value, as the CLIs define them.
_EXEC = re.compile(r"^(?:sudo\s+)?(?P<cli>docker|podman|nerdctl|kubectl|oc|k)\s+exec\s")
_EXEC_VALUED = frozenset({"-u", "--user", "-e", "--env", "-w", "--workdir", "--env-file", "--detach-keys", "-c",
                          "--container", "-n", "--namespace", "--context", "--kubeconfig", "-f", "--filename"})


# Apptainer's (formerly Singularity's) `exec`: `apptainer exec [exec options...] <container> <command>`, the image
# (a SIF file, a sandbox directory, `docker://ubuntu`) in the target's place; the options that take a value, as
# `apptainer exec --help` lists them (https://apptainer.org/docs/user/latest/cli/apptainer_exec.html; SingularityCE's
# `singularity exec` takes the same). Its `--nv` binds the host's NVIDIA device nodes and driver libraries in.
_APPTAINER_EXEC = re.compile(r"^(?:sudo\s+)?(?P<cli>singularity|apptainer)\s+exec\s")
_APPTAINER_VALUED = frozenset({"-B", "--bind", "-H", "--home", "-o", "--overlay", "-W", "--workdir", "-S", "--scratch",
                               "--env", "--env-file", "--app", "--pwd", "--hostname", "--mount", "--network",
                               "--network-args", "--security", "--add-caps", "--drop-caps", "--fusemount", "--dns",
                               "--apply-cgroups", "--cpus", "--cpu-shares", "--memory", "--memory-reservation",
                               "--memory-swap", "--pids-limit", "--blkio-weight", "--cpuset-cpus",
                               "--cpuset-mems", "--device"})


def exec_inside(command: str) -> tuple[str, str, str]:
    """(kind, target, the command it runs inside) of a `docker exec` / `kubectl exec` / `apptainer exec` line, else
    ("", "", ""); an Apptainer (Singularity) exec's target is its image, its kind "apptainer"."""
    m = _EXEC.match(command) or _APPTAINER_EXEC.match(command)
    if m is None:
        return "", "", ""
    try:
        words = shlex.split(command[m.end():])
    except ValueError:
        return "", "", ""
    kubernetes = m.group("cli") in ("kubectl", "oc", "k")  # `k`: kubectl's usual alias
    apptainer = m.group("cli") in ("singularity", "apptainer")
    target = ""
    while words:
        word = words.pop(0)
        if word == "--":
            break
        if word.startswith("-"):
            if word in (_APPTAINER_VALUED if apptainer else _EXEC_VALUED) and words:
                words.pop(0)
            continue
        if target:  # docker: the first word after the target starts the command
            words.insert(0, word)
            break
        target = word
        if not kubernetes:
            break
    inner = " ".join(words)
    if not target or not inner:
        return "", "", ""
    return ("kubernetes" if kubernetes else "apptainer" if apptainer else m.group("cli")), target, inner


# The prompt of the shell `apptainer shell` (`singularity shell`) opens inside its container: the runtime's name and `>`
# (`Singularity> nvidia-smi`, apptainer/singularity#6203; `Apptainer>`, the user guide's quick start,
# https://apptainer.org/docs/user/latest/quick_start.html). importers/_paste.py reads it as a prompt and hands the
# prompt itself over as its host, a name no host has.
CONTAINER_SHELL_PROMPTS = ("Singularity>", "Apptainer>")


def _container_prompt(name: str) -> bool:
    """Whether a prompt's host names a container: the first 12 hex digits of a container's id (a Docker or Podman
    container's default hostname), a Kubernetes pod's name (its hostname: `root@test2222-7dcd6b94b7-wl6w4:/#`,
    serving_logs.is_pod_name, corpus 2335), or the prompt of an Apptainer shell (CONTAINER_SHELL_PROMPTS)."""
    return bool(CONTAINER_HOSTNAME.fullmatch(name)) or name in CONTAINER_SHELL_PROMPTS or is_pod_name(name)


def _inside(name: str, command: str) -> str:
    """The command a prompt's row ran inside a container: the command itself at a prompt that names a container
    (_container_prompt), the command a `docker exec` / `kubectl exec` / `apptainer exec` runs there; "" for any
    other."""
    if _container_prompt(name):
        return command
    return exec_inside(command)[2]


# A process of the engine that is PID 1 (`(APIServer pid=1)`, vLLM's line prefix, corpus 510): the first process of its
# PID namespace. On a host PID 1 is init (systemd); a container starts its entrypoint, here the engine, as PID 1.
_FIRST_PROCESS = re.compile(r"^(?:[\w.:-]+ )?pid=1$")


# Where the paste shows the program's output fetched from a pod or run in a container by a launcher that puts it
# there: kubectl's own note before a multi-container pod's log (`Defaulted container "vllm" out of: vllm,
# routing-proxy (init)`, kubectl logs / exec, corpus 2340), kubectl's log stream naming the pod's container (`stream
# logs failed container "ollama" in pod "ollama-74fbf7d68b-lglf9" is waiting to start`, corpus 2571), log lines
# prefixed with KServe's serving container's fixed name (`kserve-container INFO ...`, a predictor pod's log, corpus
# 2573), or a Slurm step run in a Pyxis (Enroot) container
# (`srun ... --container-image IMAGE`, corpus 2331).
KUBECTL_DEFAULTED = re.compile(r"^\s*Defaulted container \"[\w.-]+\" out of: |"
                               r"\bcontainer \"[\w.-]{1,80}\" in pod \"[\w.-]{1,120}\"|^kserve-container\s")
PYXIS_SRUN = re.compile(r"^(?:sudo\s+)?srun\s(?:[^|;&]*?\s)?--container-image[=\s]+(\S+)")


def _launched_inside(host: Host) -> tuple[str, str]:
    """(kind, evidence) where kubectl's own line says the log that follows is a pod's container's, or a typed `srun`
    runs its step in a Pyxis container (KUBECTL_DEFAULTED, PYXIS_SRUN); ("", "") otherwise."""
    for source in (EVIDENCE_LINES, ENGINE_LOG, USER_ENGINES):
        try:
            text = host.doc(source.name)
        except NotCaptured:
            continue
        line = next((ln.strip() for ln in text.splitlines() if KUBECTL_DEFAULTED.search(ln)), "")
        if line:
            return "kubernetes", f"kubectl's own line `{line[:100]}` introduces a pod's container's log"
    image = next((m.group(1) for _, command in _prompt_rows(host) if (m := PYXIS_SRUN.match(command))), "")
    if image:
        return "container", f"`srun --container-image {image[:80]}` runs the Slurm step in a Pyxis (Enroot) container"
    return "", ""


def _pid_one(host: Host) -> str:
    """The log prefix that names a process of the paste as PID 1 (`APIServer pid=1`), or ""."""
    try:
        return next((p for p in host.doc(LOG_LINE_PROGRAMS.name).splitlines() if _FIRST_PROCESS.match(p)), "")
    except NotCaptured:
        return ""


def _ngc_check(host: Host) -> str:
    """A start-up check line of an NGC image's entrypoint (`ERROR: This container was built for NVIDIA Driver Release
    450.36 or later, but`, or its second line: facts/docker.NGC_CHECK's built-for and unavailable) among the paste's
    evidence lines or engine log, or "". The
    image's entrypoint (nvidia_entrypoint.sh) prints it, so the program whose output follows ran in that container
    (corpus 1767, 1189, 1684)."""
    return _entrypoint_line(host, lambda ln: any(NGC_CHECK[k][1].search(ln) for k in ("built-for", "unavailable")))


def _aio_smi(host: Host) -> str:
    """LocalAI's All-in-One entrypoint's `NVIDIA GPU detected` (facts/docker.AIO_SMI_RAN) among the paste's evidence
    lines or engine log, or "": the entrypoint runs nvidia-smi inside its container right after it (corpus 1953).
    "" where the entrypoint then says it found none (`NVIDIA GPU detected, but nvidia-smi is not installed`, corpus
    1858): no nvidia-smi ran."""
    if _entrypoint_line(host, lambda ln: "nvidia-smi is not installed" in ln or "nvidia-smi: command not found" in ln):
        return ""
    return _entrypoint_line(host, lambda ln: bool(AIO_SMI_RAN.search(ln)))


def _entrypoint_line(host: Host, wanted: Callable[[str], bool]) -> str:
    """The first line of the paste's evidence lines or engine log that `wanted` takes (a line an image's entrypoint
    prints), or ""."""
    for source in (EVIDENCE_LINES, ENGINE_LOG):
        try:
            text = host.doc(source.name)
        except NotCaptured:
            continue
        line = next((ln.strip() for ln in text.splitlines() if wanted(ln)), "")
        if line:
            return line
    return ""


def _prompt_rows(host: Host) -> list[tuple[str, str]]:
    """The paste's shell prompts (PROMPT_HOSTS), each as (host, command typed); none where no prompt is shown."""
    try:
        text = host.doc(PROMPT_HOSTS.name)
    except NotCaptured:
        return []
    return [(name, command) for name, _, command in (line.partition("\t") for line in text.splitlines())]


def _gpu_prompt_hosts(host: Host) -> tuple[str, ...]:
    """The distinct hosts of the paste's prompts (_prompt_rows) at which nvidia-smi is typed, in order."""
    hosts = [name for name, command in _prompt_rows(host) if command.split()[:1] == ["nvidia-smi"]]
    return tuple(dict.fromkeys(hosts))


def _exec_rows(host: Host) -> tuple[tuple[str, str], ...]:
    """(target, command) of each `docker exec` / `kubectl exec` row of the paste's prompts (exec_inside), and of each
    command typed at a prompt that names a container (_container_prompt: `root@b888322c7439:/# nvidia-smi`, its
    target the prompt's host)."""
    rows = _prompt_rows(host)
    found = [(target, inner) for kind, target, inner in (exec_inside(command) for _, command in rows) if kind]
    typed = [(name, command) for name, command in rows if command and _container_prompt(name)]
    return tuple(found + typed)


def _prompt_container(host: Host) -> tuple[str, str, tuple[str, ...]]:
    """(kind, evidence, the commands run there) where a shell prompt of the paste names a container
    (`root@802f556c99c8:/# nvidia-smi`) or runs a command in one (`$ docker exec -it ollama nvidia-smi`); ("", "", ())
    otherwise. The commands typed at other prompts ran elsewhere."""
    rows = _prompt_rows(host)
    named = next((name for name, _ in rows if _container_prompt(name)), "")
    execs = [exec_inside(command) for _, command in rows if not named and exec_inside(command)[0]]
    if not named and not execs:
        return "", "", ()
    inside = [c for name, command in rows if (c := _inside(name, command))]
    # A program typed at another prompt too: which of its outputs is the container's, the source cannot say.
    elsewhere = {command.split()[0] for name, command in rows if command and not _inside(name, command)}
    kept = tuple(dict.fromkeys(c for c in inside if c.split()[0] not in elsewhere))
    if named in CONTAINER_SHELL_PROMPTS:
        return "apptainer", f"the shell prompt `{named}` is the one `{named[:-1].lower()} shell` opens inside its " \
                            "container", kept
    if named and not CONTAINER_HOSTNAME.fullmatch(named):
        return "kubernetes", f"the shell prompt's host {named} is a Kubernetes pod's name (its hostname)", kept
    if named:
        return "container", f"the shell prompt's host {named} is a container's id (its default hostname)", kept
    kind, target, inner = execs[0]
    return kind, f"`{inner}` was run in {'pod' if kind == 'kubernetes' else 'container'} {target} by `exec`", kept


# The name Windows gives a computer at setup: `DESKTOP-` or `LAPTOP-` and random letters or digits up to NetBIOS's 15
# characters (`DESKTOP-BRNIA5E`, corpus 1270; `LAPTOP-UDGOEVA7`, corpus 1265). A WSL 2 distro
# takes the Windows computer's name as its hostname (microsoft/WSL's wsl.conf `[network] hostname` defaults to it); a
# container takes its id's first 12 hex digits unless its runner names it.
WINDOWS_DEFAULT_HOSTNAME = re.compile(r"DESKTOP-[A-Z0-9]{7}|LAPTOP-[A-Z0-9]{8}")


def _prompts_off_container(host: Host) -> list[tuple[str, str]]:
    """The paste's shell prompts, (host, command typed), where no command typed at a prompt names a container or its
    runner (_NAMES_CONTAINER); none where one does or no prompt is shown."""
    rows = _prompt_rows(host)
    return [] if any(_NAMES_CONTAINER.search(command) for _, command in rows) else rows


def _windows_named_prompt(host: Host) -> str:
    """The host of a shell prompt of the paste that is a Windows computer's default name (WINDOWS_DEFAULT_HOSTNAME),
    where no command typed at a prompt names a container or its runner (_prompts_off_container), else ""."""
    return next((name for name, _ in _prompts_off_container(host) if WINDOWS_DEFAULT_HOSTNAME.fullmatch(name)), "")


# `which nvidia-smi` typed at a shell prompt, answered from WSL 2's driver mount (`/usr/lib/wsl/lib/nvidia-smi`, corpus
# 2080): WSL puts the mount on its distro's own PATH, while a container's PATH is its image's (the toolkit links the
# driver's nvidia-smi into /usr/bin there), so the shell that resolved it is the WSL distro's own, the machine itself.
_WHICH_SMI = re.compile(r"^(?:which|command\s+-v|type\s+-p)\s+nvidia-smi\s*$")
WSL_SMI_PATH = re.compile(r"^\s*/usr/lib/wsl/lib/nvidia-smi\s*$")


def _wsl_own_shell(host: Host) -> str:
    """The answer `/usr/lib/wsl/lib/nvidia-smi` (WSL_SMI_PATH) where `which nvidia-smi` is typed at a shell prompt of
    the paste whose host is not a container's, and no command typed at a prompt names a container or its runner
    (_prompts_off_container); "" otherwise."""
    if not any(_WHICH_SMI.match(command) and not _container_prompt(name) for name, command in _prompts_off_container(host)):
        return ""
    return _entrypoint_line(host, lambda ln: "/usr/lib/wsl/" in ln and bool(WSL_SMI_PATH.match(ln)))


# What only the machine's own shell shows: sudo asking a login user's password (`[sudo] password for h100:`, corpus
# 1885; a container's shell runs as root, Docker's default user, with no password to ask), and a command that rebuilds
# the machine's boot image or boot loader, or reboots it (`depmod -a; update-initramfs -u; reboot`, corpus 1787; `$
# reboot`, corpus 1556): a container boots no kernel of its own. A GPU operator's driver container builds and loads the
# modules (depmod, modprobe), so those say nothing.
MACHINE_SHELL = re.compile(r"^\[sudo\] password for (?!root:)[\w.-]{1,64}:|(?:^|[;&|]\s*)(?:sudo\s+)?"
                           r"(?:update-initramfs|dracut|update-grub2?|grub2?-mkconfig|reboot)(?=\s+-|\s*$|\s*[;&|])")


def _machine_shell(host: Host) -> str:
    """The command typed at a shell prompt that is not a container's, or the pasted line, of MACHINE_SHELL, where no
    command typed at a prompt names a container or its runner; "" otherwise."""
    rows = _prompt_rows(host)
    if any(_NAMES_CONTAINER.search(command) for _, command in rows):
        return ""
    typed = next((command for name, command in rows if not _container_prompt(name) and MACHINE_SHELL.search(command)),
                 "")
    return typed or _entrypoint_line(host, lambda ln: bool(MACHINE_SHELL.search(ln.strip())))


# A Python environment activated at a shell prompt or in a launch script (importers/engine_command.py records the
# script's line before its command): `conda activate conda_venv/` (corpus 1803), `mamba activate vllm`,
# `source .venv/bin/activate`, `. venv/bin/activate`; uv's project environment, which `uv run` creates and runs the
# command in (`uv run python3`, `Creating virtual environment at: .venv`, corpus 2673) and `uv venv` creates.
ACTIVATE_LINE = re.compile(r"^(?:conda|mamba|micromamba)\s+activate\s+\S|^(?:source|\.)\s+\S*/bin/activate\b|"
                           r"^uv\s+(?:run|venv)\b")


def _activated_env(host: Host) -> str:
    """The command that activates a Python environment at a shell prompt of the paste whose host is not a container's
    (_container_prompt), where no command typed at a prompt names a container or its runner (_prompts_off_container):
    the user's own environment on the machine whose shell it is, as a Python environment under their home directory
    (_HOME_PYTHON) is; else ""."""
    typed = next((command for name, command in _prompts_off_container(host)
                  if not _container_prompt(name) and ACTIVATE_LINE.match(command)), "")
    return typed or _script_activated_env(host)


def _script_activated_env(host: Host) -> str:
    """The line of a pasted launch script (the engine command's source) that activates a Python environment before
    the engine starts (`source /xrepo/.../vllm_env/bin/activate`, corpus 2455, 680), where no line of the script and
    no command typed at a prompt names a container or its runner: the script runs in the user's own shell on the
    machine, as the same line typed at its prompt does (an image's entrypoint sets its PATH, no script of the user's
    activates it); else ""."""
    try:
        text = host.doc(ENGINE_COMMAND.name)
    except NotCaptured:
        return ""
    lines = text.splitlines()
    if any(_NAMES_CONTAINER.search(line) for line in lines) \
            or any(_NAMES_CONTAINER.search(command) or _container_prompt(name) for name, command in _prompt_rows(host)):
        return ""
    return next((line.strip() for line in lines if ACTIVATE_LINE.match(line.strip())), "")


def _env_prompt(host: Host) -> str:
    """The environment and host of a shell prompt of a user other than root whose prefix names a Python environment
    (`(deit92) [user@gpuhost deit]$`: PROMPT_ENVS, conda's or a venv's prefix), where neither the
    prompt's host nor the environment's name names a container (_container_prompt, _NAMES_CONTAINER: a user's
    `(container) $`) and no command typed at a prompt names one (_prompts_off_container), as `(env) host`; else "".
    A container's shell runs as root, Docker's default user (corpus 939: `(workflow) root@ip-172-31-21-250:~#` in a
    dev container); a user's own login shell on the machine runs as that user, as an environment activated there is
    (_activated_env)."""
    return next((f"({env}) {user}@{name}" if user else f"({env})" for env, user, name, _ in _host_prompt_rows(host)
                 if env and user != "root"), "")


def _login_prompt(host: Host) -> str:
    """The `user@host` of a shell prompt of the paste whose user is a login user other than root (`kgk2@bock:~$`,
    corpus 2466: PROMPT_ENVS), where no prompt's host names a container or pod (_container_prompt) and no command typed
    at a prompt names one (_prompts_off_container); else "". A container's shell runs as root, Docker's default user;
    a login user's shell on a host that is no container's is the machine's own."""
    return next((f"{user}@{name}" for _, user, name, _ in _host_prompt_rows(host) if user and name and user != "root"),
                "")


# A program run at a prompt, not a look at the machine: an interpreter running a script or module (`python3 main.py
# --config ./config.yml`, `python -m vllm.entrypoints.openai.api_server`), uv's runner, or an executable of the working
# directory (`./llama-server -m ...`), after the variables it reads.
_PROGRAM_RUN = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)*(?:python[\d.]*\s+(?:-m\s+)?[\w./-]+|uv\s+run\s+\S|\./[\w.-]+)")


def _home_prompt(host: Host) -> str:
    """The prompt of a home directory alone (`~/tabbyAPI$`, PROMPT_ENVS' fourth field), where no prompt's environment
    or host names a container or pod and no command typed at a prompt names one (_host_prompt_rows), and where it
    shows the program itself there: a program run at a prompt that names no host (_PROGRAM_RUN: `~/tabbyAPI$ python3
    main.py`, corpus 2750), or
    a directory named for the program the paste's own lines name (`~/Fooocus/Fooocus$ nvidia-smi` under `When I start
    Fooocus I get ...`, corpus 2659: its checkout in the user's home); else "". bash's `$` is a user's other than root
    and `~` that user's home: a login user's shell on the machine, as a `user@host:~$` prompt is (_login_prompt). A
    look at the GPU alone typed there (`~$ nvidia-smi`) is the host's, whatever runs the engine (corpus 1656: ollama
    in Docker, read unknown)."""
    homes = {home for _, _, _, home in _host_prompt_rows(host) if home}
    if not homes:
        return ""
    typed = [command for name, command in _prompt_rows(host) if not name]
    if any(_PROGRAM_RUN.match(command) for command in typed):
        return sorted(homes)[0]
    for home in sorted(homes):
        folder = home.rstrip("$").rsplit("/", 1)[-1]
        if len(folder) >= 4 and folder.isalpha() and _entrypoint_line(host, _names_word(folder)):
            return home
    return ""


def _names_word(word: str) -> Callable[[str], bool]:
    """Whether a line names `word` as a word of its own, not inside a path or a longer name."""
    pattern = re.compile(rf"(?<![\w/.-]){re.escape(word)}(?![\w/-])")
    return lambda line: pattern.search(line) is not None


def _host_prompt_rows(host: Host) -> list[tuple[str, str, str, str]]:
    """The (environment, user, host, home directory's prompt) of each prompt of PROMPT_ENVS, none where a prompt's
    environment or host names a container or pod (_NAMES_CONTAINER, _container_prompt) or a command typed at a prompt
    names one (_prompts_off_container)."""
    if not _prompts_off_container(host):
        return []
    try:
        text = host.doc(PROMPT_ENVS.name)
    except NotCaptured:
        return []
    rows = [(env, user, name, home) for env, user, name, home, *_ in
            ([*line.split("\t"), "", "", ""] for line in text.splitlines())]
    return [] if any(_NAMES_CONTAINER.search(env) or _container_prompt(name) for env, _, name, _ in rows) else rows


# An engine run from a build tree under a user's home directory (`/home/user/llama.cpp/build/bin/llama-server`, corpus
# 1111): a binary the user compiled in their own account on the machine; an image puts its engine under /app, /opt,
# /usr or the root's home.
_HOME_BUILD = re.compile(r"^(?:/home/[\w.-]+|~)/(?:[^/\s]+/)*build/(?:bin/(?:Release/)?)?[\w.-]+$")


# A Python interpreter of an environment in the user's home directory (a conda env, a venv, pyenv):
# `/home/my/.opt/anaconda3/envs/sglang-source/bin/python -m sglang.launch_server` (corpus 1276).
_HOME_PYTHON = re.compile(r"^(?:/home/[\w.-]+|~)/(?:[^/\s]+/)+bin/python[\d.]*$")
# A file of a Python environment in a user's home directory that a traceback or a library's load line names (`File
# "/home/star_/.conda/envs/aphrodite/lib/python3.11/site-packages/aphrodite/...", line 562`, corpus 1691; bitsandbytes'
# `bin /home/gameveloster/miniconda3/envs/textgen/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda117.so`,
# corpus 1986): the program ran from the user's own environment on the machine, as _HOME_PYTHON's interpreter does.
# Ray's images install their conda under /home/ray (rayproject/ray docker/base-deps), and Dockerfiles commonly create
# their venv as /home/venv (`RUN python -m venv /home/venv`; a TorchServe pod's traceback, tests/
# test_cuda_unknown_error_in_container.py): those homes are an image's.
# A line beside it under /workspace, the working directory of NGC's framework images and of RunPod's pods, leaves where
# the program ran open: a traceback's frame there (corpus 1610: a home conda env running code under /workspace).
# Python's warning line names its file first (`/home/camus/.../site-packages/torch/cuda/__init__.py:141: UserWarning:`);
# a word the paste glued before it is no part of that path (`invokeai-web/home/camus/repos/invokeai/venv/...`: the
# program's name printed before the warning without a line end, corpus 2666).
IMAGE_WORKDIR = re.compile(r"\bFile \"/workspace/")
HOME_PYTHON_FILE = re.compile(r"(?:^|[\s\"'(=]|^[\w-]{1,40}(?=/home/\S{1,300}?\.py:\d+: \w*Warning: ))"
                              r"(?:/home/(?!ray/|venv/)[\w.-]+|~)/(?:[^/\s\"']+/){0,8}?lib/python\d[\d.]*/site-packages/")
# llamafile's GPU module, which the program extracts or compiles into its running user's home and links from there
# (`link_cuda_dso: note: dynamically linking /home/yo/.llamafile/ggml-cuda.so`, corpus 2374; llamafile's
# llamafile/cuda.c puts it under $HOME/.llamafile, in a versioned folder in later releases): a llamafile run by a login
# user on the machine, as a Python environment under that home is (HOME_PYTHON_FILE). A container's user is root, whose
# home is /root.
HOME_LLAMAFILE_MODULE = re.compile(r"(?:^|[\s\"'(=])/home/(?!ray/|venv/)[\w.-]+/\.llamafile/(?:[\w.-]+/){0,3}?"
                                   r"ggml-(?:cuda|rocm)\.(?:so|dll)\b")
# A program built on the same line before it runs (`GGML_CUDA=1 make -j && ./llama-server ...`, corpus 1280).
# An assignment's name holds no `=`, so each word before the program splits one way only (`\S+=\S*` backtracks
# through every `=` of every word: exponential on `a=b=c=d ...`).
_BUILT_THEN_RUN = re.compile(r"(?:^|[\s;&(])(?:make|cmake\s+--build)\b[^&;|]*&&\s*(?:[A-Za-z_]\w*=\S*\s+)*\./")


# The user's words that they built the engine themselves (`I compiled `llama.cpp` with cuBLAS support`, corpus 1832;
# `I built llama.cpp from source`): with its binary run by a relative path (`./main`) it is a build of their own,
# run where it was built. A line that names a container (_NAMES_CONTAINER) is no such statement.
STATED_BUILT = re.compile(r"\bI(?:\s+have|'ve)?\s+(?:re)?(?:compiled|built)\s+[`'\"*_]{0,2}[\w.-]+", re.I)


# A build typed at a shell prompt (`llama.cpp$ LLAMA_CUBLAS=1 make -j 16`, ggml-org/llama.cpp#1283), after the
# variables it reads.
_TYPED_BUILD = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)*(?:make|cmake\s+--build)\b")


def _stated_built(host: Host) -> str:
    """The user's words that they compiled or built the engine themselves (STATED_BUILT), naming no container, or a
    build typed at a shell prompt whose host is not a container's, where no command typed at a prompt names one
    (_prompts_off_container), or ""."""
    try:
        text = host.doc(USER_ENGINES.name)
    except NotCaptured:
        text = ""
    said = next((m.group(0) for line in text.splitlines()
                 if (m := STATED_BUILT.search(line)) and not _NAMES_CONTAINER.search(line)), "")
    return said or next((command for name, command in _prompts_off_container(host)
                         if not _container_prompt(name) and _TYPED_BUILD.match(command)), "")


def _home_env_file(host: Host) -> str:
    """A pasted line of evidence or of the engine's log that names a file of a Python environment in a user's home
    (HOME_PYTHON_FILE), or llamafile's GPU module there (HOME_LLAMAFILE_MODULE), where no command typed at a prompt names a container or its runner and no such line names a
    file under an image's working directory (IMAGE_WORKDIR), or ""."""
    if any(_NAMES_CONTAINER.search(command) for _, command in _prompt_rows(host)):
        return ""
    if _entrypoint_line(host, lambda ln: "/workspace/" in ln and bool(IMAGE_WORKDIR.search(ln))):  # a traceback's
        return ""
    line = _entrypoint_line(host, lambda ln: "site-packages/" in ln and bool(HOME_PYTHON_FILE.search(ln)))
    m = HOME_PYTHON_FILE.search(line)
    if m is None:
        line = _entrypoint_line(host, lambda ln: "/.llamafile/" in ln and bool(HOME_LLAMAFILE_MODULE.search(ln)))
        m = HOME_LLAMAFILE_MODULE.search(line)
    found = m.group(0).lstrip(" \t\"'(=") if m else ""
    return found if found[:1] in ("/", "~", "") else found[found.find("/home/"):]


def _home_build_engine(ctx: FactContext) -> str:
    """The engine command run from a build tree in the user's home directory, from a Python environment there, or
    built on its own line before it runs (`make -j && ./llama-server`), or run by a relative path (`./main`) where the
    user's words say they compiled it (STATED_BUILT), or a traceback's or library's file of a Python environment
    there (_home_env_file), or ""."""
    if home_file := _home_env_file(ctx.host):
        return home_file
    commands = ctx.optional("engine_commands", EngineCommands)
    for command in commands.commands if commands is not None else ():
        if not command.argv or command.builds:
            continue
        if _HOME_BUILD.match(command.argv[0]) or _HOME_PYTHON.match(command.argv[0]) \
                or (command.argv[0].startswith("./") and (_BUILT_THEN_RUN.search(command.line)
                                                          or _stated_built(ctx.host))):
            return command.argv[0]
    return ""


# A systemd unit's start line (`ExecStart=/usr/bin/python /opt/koboldcpp-latest/koboldcpp.py ...`, corpus 920; systemd's
# prefixes `-@:+!` allowed): systemd runs the engine as a service of the machine whose unit it is. A unit that starts a
# container runs its runtime's CLI there (`ExecStart=/usr/bin/docker run ...`), which no engine command is.
_UNIT_START = re.compile(r"^\s*ExecStart=[-@:+!]*\S")
_RUNTIME_CLI = re.compile(r"(?:^|/)(?:docker|podman|nerdctl|ctr|crictl|kubectl|lxc-\w+|systemd-nspawn|apptainer|"
                          r"singularity)$")


def _unit_engine(ctx: FactContext) -> str:
    """The engine command a pasted systemd unit's ExecStart runs directly (no container runtime's CLI), or ""."""
    commands = ctx.optional("engine_commands", EngineCommands)
    for command in commands.commands if commands is not None else ():
        if _UNIT_START.match(command.line) and command.argv and not any(_RUNTIME_CLI.search(w) for w in
                                                                        command.line.split()[:2]):
            return command.line
    return ""


# `ollama serve` typed at a shell prompt, after `sudo` and the variables it reads (`OLLAMA_MAX_VRAM=... ollama serve`,
# corpus 1426): the server started by hand, as STATED_HOST_WORDS says it in words. Its Docker image runs `ollama serve`
# as the container's entrypoint, so no one types it there.
_TYPED_OLLAMA_SERVE = re.compile(r"^(?:sudo\s+(?:-E\s+)?)?(?:[A-Za-z_]\w*=\S*\s+)*ollama\s+serve\b")
# An engine whose one distribution is an executable the user runs from their own shell, with no container image of its
# project: llamafile, llama.cpp built into one file (mozilla-ai/llamafile publishes binaries only; its PR to publish an
# image, #59, closed unmerged). Its command is typed where it runs (corpus 2217).
SHELL_RUN_PROGRAMS = frozenset({"llamafile"})


# ollama's `server config` line (`routes.go:1194: INFO server config env="map[... OLLAMA_HOST:http://127.0.0.1:11434
# ...]"`) with the server bound to the loopback address: the binary's default, which ollama's Docker image overrides
# (its Dockerfile sets `ENV OLLAMA_HOST=0.0.0.0:11434`) so that a published port reaches the server. A server bound to
# a container's own loopback answers nothing outside it, so the line is the server of the host itself (corpus 1983,
# 2025, 2072, 2145).
OLLAMA_LOOPBACK_CONFIG = re.compile(r"\bINFO server config env=\"?map\[[^\"\]]{0,4000}?\bOLLAMA_HOST:(?:https?://)?"
                                    r"(?:127\.0\.0\.1|localhost)(?::\d+)?[\s\]]")


def _loopback_ollama(host: Host) -> str:
    """ollama's server config line with the server bound to the loopback address (OLLAMA_LOOPBACK_CONFIG), cut to its
    OLLAMA_HOST entry, where no command typed at a prompt names a container or its runner; "" otherwise."""
    if any(_NAMES_CONTAINER.search(command) for _, command in _prompt_rows(host)):
        return ""
    line = _entrypoint_line(host, lambda ln: "OLLAMA_HOST:" in ln and bool(OLLAMA_LOOPBACK_CONFIG.search(ln)))
    m = re.search(r"OLLAMA_HOST:\S+?(?=[\s\]])", line)
    return m.group(0) if m else ""


def _typed_host_server(ctx: FactContext) -> str:
    """A prompt's command that starts ollama's server by hand (_TYPED_OLLAMA_SERVE) at a prompt that names no
    container, where no command typed at a prompt names a container or its runner (_prompts_off_container), else "".
    So is a pasted engine command line that is that command alone, its prompt not shown (`ollama serve` above its
    log, corpus 2082), where no prompt of the paste names a container or a command typed names one: what starts
    ollama in a container is its image's entrypoint, a compose `command:` or a `docker exec`, none such a line. So is
    the command of a program of SHELL_RUN_PROGRAMS (`llamafile -m ... --gpu nvidia`, corpus 2217), which no image of
    its project starts."""
    host = ctx.host
    typed = next((command for name, command in _prompts_off_container(host)
                  if _TYPED_OLLAMA_SERVE.match(command) and not _container_prompt(name)), "")
    rows = _prompt_rows(host)
    if typed or any(_container_prompt(name) or _NAMES_CONTAINER.search(command) for name, command in rows):
        return typed
    commands = ctx.optional("engine_commands", EngineCommands)
    return next((c.line.strip() for c in (commands.commands if commands is not None else ())
                 if (c.engine == "ollama" and _TYPED_OLLAMA_SERVE.match(c.line.strip()))
                 or (c.argv and posixpath.basename(c.argv[0]) in SHELL_RUN_PROGRAMS)), "")


# `ps --forest`'s header, its last column the command (`    PID COMMAND`, `PPID   PID ... STAT   TIME COMMAND`), and its
# rows, each starting with a number (the PID, or PPID first) (importers/process_tree.py).
FOREST_HEADER = re.compile(r"^\s*(?:\S+\s+)*PID\s+(?:\S+\s+)*(?:COMMAND|CMD|COMM)\s*$")
FOREST_ROW = re.compile(r"^\s*\d+\s+\S")
# Slurm runs a batch job's script as `slurm_script` (slurmstepd copies it to its spool directory under that name).
_BATCH_SCRIPT = frozenset({"slurm_script"})
# A container runtime's process between a job and what it runs: the runtimes' own, and the HPC ones (Enroot, which
# Pyxis drives, Apptainer / Singularity, Charliecloud, Shifter, Sarus, Podman-HPC), and `srun`, whose tasks slurmstepd
# starts outside the script's tree (in a container where Pyxis's `--container-image` asks for one).
_RUNTIME_PROCESS = re.compile(r"^(?:containerd-shim\S*|conmon|runc|crun|docker\S*|podman\S*|nerdctl|enroot\S*|"
                              r"singularity|apptainer|starter(?:-suid)?|Apptainer|Singularity|ch-run|shifter|sarus|"
                              r"nvidia-container\S*|srun)\b")


def _forest(text: str) -> list[tuple[int, str]]:
    """The rows of a pasted `ps --forest`, each as (the column its command starts at, the command's first word)."""
    rows: list[tuple[int, str]] = []
    column = 0
    for line in text.splitlines():
        if FOREST_HEADER.match(line):
            column = max(line.rfind("COMMAND"), line.rfind("CMD"), line.rfind("COMM"))
            continue
        if not FOREST_ROW.match(line):
            continue
        branch = line.find("\\_ ")
        start = branch + 3 if branch >= 0 else column
        words = line[start:].split() if start < len(line) else []
        if words:
            rows.append((start, words[0]))
    return rows


def _batch_job_on_host(host: Host) -> str:
    """A Slurm batch script (`slurm_script`) a pasted `ps --forest` shows with processes under it and no container
    runtime among them (_RUNTIME_PROCESS): the job's work runs on the node itself, as the script's children. Its first
    child and the script, or "". A job whose script Pyxis starts in a container (`#SBATCH --container-image`) shows
    the same tree; the paste's tree is read as the common case, a job run on the node."""
    try:
        rows = _forest(host.doc(PROCESS_TREE.name))
    except NotCaptured:
        return ""
    for i, (column, command) in enumerate(rows):
        if command not in _BATCH_SCRIPT:
            continue
        below = []
        for child_column, child in rows[i + 1:]:
            if child_column <= column:
                break
            below.append(child)
        if below and not any(_RUNTIME_PROCESS.match(c) for c in below):
            return f"{command} -> {below[0]}"
    return ""


def _stated_host(host: Host) -> str:
    """The user's words that they started the engine's server from their own shell (stated_host), or ""."""
    try:
        text = host.doc(USER_ENGINES.name)
    except NotCaptured:
        return ""
    return next((words for line in text.splitlines() if (words := stated_host(line))), "")


def _host_side_evidence(host: Host) -> str:
    """What a pasted text shows was run on a container *host* (docker inspect, LXC configs)."""
    try:
        host.doc(DOCKER_INSPECT.name)
        return "`docker inspect` was run on the Docker host"
    except NotCaptured:
        pass
    # A node's description (`kubectl describe node`) is the host of the pods it runs, seen from outside them.
    for spec in (DOCKER_INSPECT_EXCERPT, DOCKER_RUN, COMPOSE_FILE, K8S_SPEC, K8S_NODE):
        try:
            host.doc(spec.name)
            return f"a {spec.title.removeprefix('pasted ')} {_OUTSIDE}"
        except NotCaptured:
            continue
    try:
        if host.run(list(DOCKER_PS.argv)).ok:
            return "the docker CLI answers here: this is the Docker host"
    except NotCaptured:
        pass
    for directory in ("/etc/pve/lxc", "/var/lib/lxc"):
        if list_or_none(host, directory):
            return f"container configs under {directory} were read on the LXC/Proxmox host"
    return ""


def _journal_engine(host: Host, program: re.Pattern[str] = _HOST_ENGINE) -> str:
    """The engine's process (`ollama[28685]`) that writes its own lines to the machine's journal (_HOST_ENGINE; or the
    desktop session's, `gdm3[7055]`, with `program` _DESKTOP_SESSION), else "". The journal takes a program's output as
    that program's only where systemd runs it as a unit: a container's output goes to its runtime's log, and a command
    typed at a terminal prints to the terminal."""
    try:
        return next((p for p in host.doc(LOG_LINE_PROGRAMS.name).split() if program.match(p)), "")
    except NotCaptured:
        return ""


def _uname_container(ctx: FactContext) -> str:
    """The node name pasted `uname -a` prints where it is a container's default hostname (its id's first 12 hex
    digits, CONTAINER_HOSTNAME) and no shell prompt of the paste names another host and no command typed names a
    container or its runner (_NAMES_CONTAINER): the paste's commands ran in that container (corpus 1997). "" otherwise."""
    from stackaudit.facts.system import KernelInfo

    kernel = ctx.optional("kernel", KernelInfo)
    name = kernel.hostname if kernel is not None else ""
    if not CONTAINER_HOSTNAME.fullmatch(name):
        return ""
    rows = _prompt_rows(ctx.host)
    if any(host not in ("", name) for host, _ in rows) or any(_NAMES_CONTAINER.search(cmd) for _, cmd in rows):
        return ""
    return name


# The distribution a kernel's release names: the RPM family's tag (RHEL and its rebuilds `.el8`, Oracle's `.el8uek`,
# openEuler `.oe2203`, Anolis `.an8`, Alibaba Cloud Linux `.al8`, Fedora `.fc39`, Amazon Linux `.amzn2`, Kylin `.ky10`)
# or Ubuntu's flavour after its ABI number (`5.15.0-91-generic`, `-aws`, `-azure`, `-gcp`, `-nvidia`) and Debian's
# `+deb12-amd64`; and the family a userland's OS line names (collect_env's `OS: Ubuntu 18.04.3 LTS (x86_64)`).
_RPM_KERNEL = re.compile(r"\.(?:el\d+(?:uek)?|oe\d{4}|an\d+|al\d+|fc\d+|amzn\d+|ky\d+)(?:[._]|$)")
_DEB_KERNEL = re.compile(r"-\d+-(?:generic|lowlatency|aws|azure|gcp|gke|oracle|kvm|nvidia|ibm)\b|\+deb\d+")
_DEB_OS = re.compile(r"^(?:Ubuntu|Debian)\b", re.I)
_RPM_OS = re.compile(r"^(?:CentOS|Red Hat|RHEL|Rocky|AlmaLinux|Oracle Linux|Fedora|openEuler|Anolis|Alibaba Cloud Linux|"
                     r"Amazon Linux)\b", re.I)


def _foreign_kernel(ctx: FactContext) -> str:
    """Where a collect_env report's userland (its `OS` line) is of one distribution family and the kernel it ran on
    (its `Python platform` release) is built by the other (`OS: Ubuntu 18.04.3 LTS` over
    `5.10.0-60.70.0.94.oe2203.bclinux.x86_64`, openEuler's: corpus 2658), the two in words; else "". A machine, or a VM,
    boots a kernel of its own distribution; a userland over another's kernel shares the host's: a container (Docker,
    Podman's toolbox, Apptainer), where the report ran. A kernel whose family its release does not name (a vanilla or
    WSL kernel) tells nothing."""
    from stackaudit.facts.collect_env import CollectEnv

    env = ctx.optional("collect_env", CollectEnv)
    if env is None or not env.os or not env.kernel:
        return ""
    if (_DEB_OS.match(env.os) and _RPM_KERNEL.search(env.kernel)) or (_RPM_OS.match(env.os)
                                                                      and _DEB_KERNEL.search(env.kernel)):
        return f"the report's userland is {env.os} and its kernel {env.kernel}, another distribution's"
    return ""


def _wsl1_kernel(ctx: FactContext) -> str:
    """The kernel release where it is WSL 1's (facts/platform.WSL1_KERNEL), else "": WSL 1 runs no container engine
    (Docker's WSL back end needs WSL 2's real kernel), so the program that reported it ran in the distro itself
    (corpus 2662)."""
    from stackaudit.facts.platform import wsl1_kernel
    from stackaudit.facts.system import KernelInfo

    kernel = ctx.optional("kernel", KernelInfo)
    return kernel.release if kernel is not None and wsl1_kernel(kernel.release) else ""


def _test_container_host(ctx: FactContext) -> str:
    """The one host every pasted nccl-tests rank line names, where it is a container's default hostname (its id's
    first 12 hex digits), else ""."""
    tests = ctx.optional("nccl_test_runs", NcclTestRuns)
    hosts = {h for g in (tests.groups if tests is not None else ()) for h in g.hosts}
    one = next(iter(hosts)) if len(hosts) == 1 else ""
    return one if CONTAINER_HOSTNAME.fullmatch(one) else ""


@provider("container", ContainerInfo, title="marker files, /proc/1 and cgroups")
def container(ctx: FactContext) -> ContainerInfo:
    """Container runtime around the audit, from marker files, /proc/1 and cgroups."""
    host = ctx.host
    evidence: list[str] = []
    kind = ""

    optional = Reads(host)
    systemd_container = (optional("/run/systemd/container") or "").strip()
    pid1_environ = optional("/proc/1/environ") or ""
    self_environ = optional("/proc/self/environ") or ""
    cgroup = optional("/proc/1/cgroup") or optional("/proc/self/cgroup") or ""
    sa_token_dir = list_or_none(host, "/var/run/secrets/kubernetes.io/serviceaccount")
    if parse_environ(self_environ).get("KUBERNETES_SERVICE_HOST") or sa_token_dir or "kubepods" in cgroup:
        kind = "kubernetes"
        evidence.append("Kubernetes service account / KUBERNETES_SERVICE_HOST / kubepods cgroup")
    elif optional("/run/.containerenv") is not None or systemd_container == "podman":
        kind = "podman"
        evidence.append("/run/.containerenv")
    elif optional("/.dockerenv") is not None or re.search(r"/docker[/-]", cgroup):
        kind = "docker"
        evidence.append("/.dockerenv" if optional("/.dockerenv") is not None else "docker cgroup path")
    elif systemd_container in ("lxc", "lxc-libvirt") or parse_environ(pid1_environ).get("container") == "lxc":
        kind = "lxc"
        evidence.append(f"container={systemd_container or 'lxc'}")
    elif systemd_container == "systemd-nspawn" or parse_environ(pid1_environ).get("container") == "systemd-nspawn":
        kind = "systemd-nspawn"
        evidence.append("container=systemd-nspawn")
    elif systemd_container:
        kind = "container"
        evidence.append(f"/run/systemd/container says {systemd_container}")
    elif "/lxc/" in cgroup or "/lxc.payload" in cgroup:
        kind = "lxc"
        evidence.append("lxc cgroup path")
    else:
        mount_kind, why = _mountinfo_kind(optional("/proc/self/mountinfo") or "")
        if mount_kind:
            kind = mount_kind
            evidence.append(why)
    if not kind and not optional.answered:
        # A pasted text says nothing about markers; `df` (if pasted) may still show a container.
        # A whole table (not `df /dev/shm`): its root filesystem is what tells.
        df = read_df(host, [src for src in DF_TABLES if src.argv[-1] != SHM_PATH])
        if df is not None:
            kind, why = _df_kind(df[1])
            if kind:
                evidence.append(why)
            elif mount := _df_host_side(df[1]):
                return ContainerInfo.ran_on_host(
                    f"df lists {mount}, a mount only the machine itself has (its boot partition, its EFI variables, or "
                    "a container's root seen from outside): the shell is the host's, not a container's")
        if not kind:
            # `df /dev/shm` alone: only the name of the /dev/shm mount (`shm`) can tell.
            shm_df = read_df(host, [src for src in DF_TABLES if src.argv[-1] == SHM_PATH])
            kind, why = _df_kind(shm_df[1]) if shm_df is not None else ("", "")
            kind, why = (kind, why) if "`shm` mount" in why else ("", "")
            if kind:
                evidence.append(why)
        if not kind:
            # NCCL lines tag each rank with its hostname: a container's default one is its id's first 12 hex digits.
            log = ctx.optional("serving_log", ServingLog)
            if log is not None and log.container_host():
                kind = "container"
                evidence.append(f"NCCL logs from host {log.container_host()}, a container's default hostname (its id)")
            elif log is not None and log.pod_host():
                kind = "kubernetes"
                evidence.append(f"NCCL logs from host {log.pod_host()}, a Kubernetes pod's name (a pod in the node's "
                                "network would take the node's name)")
            elif log is not None and log.tgi_image and log.tgi_image != TGI_NO_IMAGE:
                return ContainerInfo("container", (f"TGI's runtime environment names the image its launcher runs in "
                                                   f"(`Docker label: {log.tgi_image}`; outside TGI's image it reads "
                                                   "N/A)",), None, ran_inside=("nvidia-smi",) if log.tgi_image_smi else ())
        if not kind:
            # nccl-tests names each rank's host in its device list (`Rank 0 Pid 12414 on 51e6e7896958 device 0`).
            tested = _test_container_host(ctx)
            if tested:
                kind = "container"
                evidence.append(f"nccl-tests' ranks run on host {tested}, a container's default hostname (its id)")
        if not kind:
            host_side = _host_side_evidence(host)
            if host_side:
                # The image's entrypoint ran nvidia-smi in the container the spec starts: what it printed is the
                # container's own view.
                return ContainerInfo("", (host_side,), None, exec_into=_exec_rows(host),
                                     gpu_prompt_hosts=_gpu_prompt_hosts(host),
                                     ran_inside=("nvidia-smi",) if _aio_smi(host) else (),
                                     plugin_reached=_gpu_stack_pod(host)[2])
            journal = _journal_engine(host)
            if journal:
                return ContainerInfo.ran_on_host(
                    f"the program logs to the host's journal as its own process ({journal}): a systemd "
                    "service of the machine, not a container",
                    as_service=True, exec_into=_exec_rows(host))
            desktop = _journal_engine(host, _DESKTOP_SESSION)
            if desktop:
                return ContainerInfo.ran_on_host(
                    f"the journal holds the machine's desktop session ({desktop}: its display manager or an autostart "
                    "entry of its login session), which no container runs: the machine's own journal",
                    exec_into=_exec_rows(host))
            session = _session_oom_engine(ctx)
            if session:
                return ContainerInfo.ran_on_host(
                    f"the kernel's OOM report puts the engine's process in a login session's cgroup ({session}): "
                    "a program typed in a session on the machine, not a container (a container's memory cgroup is "
                    "its runtime's)")
            kind, why, reached, short, waits = _gpu_stack_pod(host)
            node_kind, node_why, gpuless = _minikube_node(host)
            if kind:
                return ContainerInfo(kind, (why, node_why) if node_why else (why,), None, plugin_reached=reached,
                                     plugin_short=short, node_without_gpus=gpuless, driver_wait=waits)
            if node_kind:
                return ContainerInfo(node_kind, (node_why,), None, node_without_gpus=gpuless)
            kind, why, inside = _prompt_container(host)
            if kind:
                return ContainerInfo(kind, (why,), None, inside)
            kind, why = _launched_inside(host)
            if kind:
                return ContainerInfo(kind, (why,), None)
            named = _uname_container(ctx)
            if named:
                return ContainerInfo("container", (f"`uname -a` names the host {named}, a container's id (its default "
                                                   "hostname), and no prompt or command of the paste names another "
                                                   "host or a container runner",), None, ran_inside=("nvidia-smi",))
            # A login user's prompt on a named host (_login_prompt) is the machine's own shell: a userland over another
            # distribution's kernel there says nothing of where the report ran (modelled on 2724).
            foreign = _foreign_kernel(ctx) if not _login_prompt(host) else ""
            if foreign:
                # The report ran in the container: its torch's CUDA answer is the container's (ran_inside).
                return ContainerInfo("container", (f"{foreign}: a userland over the host's kernel, a container's",),
                                     None, ran_inside=("collect_env",))
            first = _pid_one(host)
            if first:
                return ContainerInfo("container", (f"the log's process ({first}) is PID 1 of its PID namespace: a "
                                                   "container's entrypoint (on a host PID 1 is init)",), None)
            ngc = _ngc_check(host)
            if ngc:
                return ContainerInfo("container", (f"the NGC image's entrypoint ran its start-up check (\"{ngc[:120]}\"): "
                                                   "it runs only inside the image's container",), None)
            aio = _aio_smi(host)
            if aio:
                return ContainerInfo("container", (f"LocalAI's All-in-One entrypoint printed \"{aio[:120]}\" and ran "
                                                   "nvidia-smi after it: it runs only inside the image's container",),
                                     None, ran_inside=("nvidia-smi",))
            kind, why = _stated_container(host)
            if kind and _stated_smi_inside(host):
                return ContainerInfo(kind, (why,), None, ran_inside=("nvidia-smi",))
            if kind:
                evidence.append(why)
        if not kind:
            # Where the engine itself ran, where the paste shows it: no container check about its container applies.
            built = _home_build_engine(ctx)
            if built:
                return ContainerInfo.ran_on_host(
                    f"the engine runs from a build tree, Python environment or program module of the user's own "
                    f"({built}): a program built or installed and run on the machine, not in a container")
            activated = _activated_env(host)
            if activated:
                return ContainerInfo.ran_on_host(
                    f"`{activated[:100]}` is run in the machine's own shell (typed at its prompt, or a line of "
                    "the user's launch script): the user's Python environment, activated and run on the machine, "
                    "not in a container (no command there names one)")
            unit = _unit_engine(ctx)
            if unit:
                return ContainerInfo.ran_on_host(
                    f"a systemd unit starts the engine (`{unit[:100]}`): a service of the machine whose "
                    "unit it is, not a container",
                    as_service=True)
            named = _windows_named_prompt(host)
            if named:
                return ContainerInfo.ran_on_host(
                    f"the shell prompt's host {named} is a Windows computer's default name, which a WSL "
                    "distro's own shell takes (a container takes its id), and no command typed there names "
                    "a container")
            wsl = _wsl_own_shell(host)
            if wsl:
                return ContainerInfo.ran_on_host(
                    f"`which nvidia-smi` answers `{wsl}`, WSL 2's driver mount on its distro's own PATH (a container's "
                    "PATH is its image's): the shell is the WSL distro's own, and no command typed there names a "
                    "container")
            wsl1 = _wsl1_kernel(ctx)
            if wsl1:
                return ContainerInfo.ran_on_host(
                    f"the kernel release {wsl1} is WSL 1's, which runs no container engine (Docker's WSL back end "
                    "needs WSL 2): the program ran in the WSL 1 distro itself")
            typed = _typed_host_server(ctx)
            if typed and not _TYPED_OLLAMA_SERVE.match(typed):
                return ContainerInfo.ran_on_host(
                    f"`{typed[:100]}` is typed at the user's shell: a program its project ships as one executable "
                    "to run there, with no container image of its own")
            if typed:
                return ContainerInfo.ran_on_host(
                    f"`{typed[:100]}` is typed at a shell prompt: ollama's server started by hand on the "
                    "host (its Docker image starts it as the entrypoint)")
            loopback = _loopback_ollama(host)
            if loopback:
                return ContainerInfo.ran_on_host(
                    f"ollama's server config binds the server to the loopback address (`{loopback}`), the "
                    "binary's default: ollama's Docker image sets 0.0.0.0 so that a published port reaches it")
            job = _batch_job_on_host(host)
            if job:
                return ContainerInfo.ran_on_host(
                    "the pasted process tree shows a Slurm batch job's work as the script's own children "
                    f"on the node ({job}), no container runtime among them")
            log = ctx.optional("serving_log", ServingLog)
            if log is not None and log.tgi_image == TGI_NO_IMAGE:
                return ContainerInfo.ran_on_host(
                    "TGI's runtime environment says its launcher runs outside TGI's image (`Docker label: "
                    "N/A`; in the image it names the image's commit, `sha-...`)")
            # After the engine's own word (TGI's label above): a prompt's environment is the user's shell.
            prefixed = _env_prompt(host)
            if prefixed:
                return ContainerInfo.ran_on_host(
                    f"the shell prompt `{prefixed[:100]}` names the Python environment the user's shell activated: "
                    "the user's own environment on the machine, not a container (no prompt or command of the paste "
                    "names one)")
            login = _login_prompt(host)
            if login:
                return ContainerInfo.ran_on_host(
                    f"the shell prompt `{login[:100]}` is a login user's on a host that names no container or pod (a "
                    "container's shell runs as root): the machine's own shell, and no command typed there names a "
                    "container")
            home = _home_prompt(host)
            if home:
                return ContainerInfo.ran_on_host(
                    f"the shell prompt `{home[:100]}` is a user's in their home directory, not root's (bash's `$`; a "
                    "container's shell runs as root, whose prompt ends `#`): the machine's own shell, and no command "
                    "typed there names a container")
            admin = _machine_shell(host)
            if admin:
                return ContainerInfo.ran_on_host(
                    f"`{admin[:100]}` is the machine's own shell: sudo asking a login user's password (a container's "
                    "shell runs as root), or its boot image or boot loader rebuilt, or a reboot, which no container "
                    "does; no command typed names a container")
            words = _stated_host(host)
            if words and FORM_CLI_DIRECTLY.match(words):
                return ContainerInfo.ran_on_host(
                    f"TGI's issue form ticks \"{words.lstrip('-* ')}\" and leaves its Docker box empty: the "
                    "launcher ran on the host")
            said = next((why for pattern, why in STATED_ON_HOST if words and pattern.match(words)), "")
            if said:
                return ContainerInfo.ran_on_host(said.format(words=words))
            if words:
                return ContainerInfo.ran_on_host(
                    "the user's words start the engine's server on the host (from their own shell, or as "
                    f"its systemd service): \"{words}\"",
                    as_service=bool(STATED_SERVICE_WORDS.search(words)))
            raise FactUnavailable("the source does not show whether it ran in a container",
                                  "paste `cat /proc/1/cgroup` and `ls -a /` (or capture with `stackaudit capture`)")

    cgroup_version: int | None = None
    mounts = optional("/proc/self/mounts") or optional("/proc/mounts")
    if mounts:
        if re.search(r"^\S+ /sys/fs/cgroup cgroup2 ", mounts, re.MULTILINE):
            cgroup_version = 2
        elif re.search(r" /sys/fs/cgroup/\S+ cgroup ", mounts):
            cgroup_version = 1
    return ContainerInfo(kind, tuple(evidence), cgroup_version)
