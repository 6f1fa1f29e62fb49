"""Lines of known evidence in any text, whatever output they were cut from.

A paste is refused only when no line of it is evidence. The block recognisers read whole outputs;
this reader takes the lines of known evidence they leave: an `nvidia-smi -q` field on its own
(`Driver Version : 535.104.05`, a flattened `Key : value` run), an element of `nvidia-smi -q -x`
without its `<gpu>` (`<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>`), a
PCIe link state (`LnkSta:`), an NVRM kernel message, an Xid the user reports (facts/gpu_events.stated_xids: `I have
experienced two GPU crashes with the exact same NVIDIA Xid 62 signature`, `6× Xid 79`, the driver's record without its
`NVRM:` tag, and a list of Xids under the sentence that reports them, read with it: stated_xid_list), the loaded module's banner (`NVRM version: NVIDIA UNIX ...`,
recorded as /proc/driver/nvidia/version, the file it comes from), nvidia-smi's versions or its failure to reach
the driver, a limit of `ulimit -a`, a log symptom of `facts/symptoms.py` (NCCL failing to create its
/dev/shm segment, quoted in prose), the CUDA samples' peer-access answer (`Peer access from … (GPU0)
-> … (GPU1) : Yes`), a data test's verdict (facts/peer_access.py DATA_TESTS: `simpleP2P : Failed (code 1)`), a program's record of the driver refusing peer access (facts/peer_access.py: NCCL's
`Could not enable P2P between dev …`, TensorRT-LLM's, TensorFlow's) and a Python session's peer-access query
with the answer it printed, a torch copy straight between two GPUs whose shown result is zeros (with the lines of its
snippet that define its source), the first line of `systemctl status` for a unit of the NVIDIA stack, Fabric
Manager's own words without their journal tag (its version mismatch, quoted in prose or printed by a
driver container: appended to NVIDIA_DAEMON_LOG instead), the Kubernetes device plugin's start lines (klog's
`main.go:154] Starting FS watcher.`, `Loading NVML`; GKE's `mig.go:175] Discovered GPU partition: nvidia0/gi0`), the GPU
Operator's toolkit container's (`level=info msg="Starting 'setup' for containerd"`), GKE's driver installer's (`Waiting for
GPU driver libraries to be available.`, facts/container.GKE_INSTALLER_LINE), a `minikube start` that runs the Kubernetes node as a
container (facts/container.MINIKUBE_START), ollama's GPU discovery lines (`msg="inference
compute"`, `looking for compatible GPUs`, `no compatible GPUs were discovered`), the CUDA runners it ships
(`Dynamic LLM libraries [cuda_v11 ...]`), the driver library its `detected GPUs` line loaded
(`library=/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.16`), the device count its CUDA probe printed and the probe's line
per GPU (`[GPU-<uuid>] Compute Capability 12.0`), a driver package of the open flavour (`nvidia-dkms-580-open`), a `dkms status` line of the nvidia module installed for a
kernel (facts/kernel_knobs.DKMS_INSTALLED), the CUDA runtime's error as PyTorch prints it
(`CUDA error: an illegal memory access was encountered`, `cudaErrorIllegalAddress`), libnvidia-container's debug
lines (`nvc.c:376] initializing library context`), a GPU stack pod's owner or image in `kubectl describe pod`
(`Controlled By:  DaemonSet/nvidia-driver-daemonset`), a line of another vendor's GPU at work (facts/gpus.other_gpu_line:
ollama's ROCm discovery, ggml's Metal backend, a macOS launcher; rocm-smi's table and fields, rocminfo's GPU agent,
amd-smi, a ROCm variable set to a value), a list's package version (`PyTorch: 2.8.0+cu128`, uv's ` + onnxruntime-gpu==1.20.1`), Text Generation
Inference's /info object's `"docker_label"` read with the `"version"` above it (facts/docker.tgi_info_line), a CUDA program's line of its context at work (facts/cuda_ran.py: torch's
out-of-memory message, TensorRT-LLM's executor ledger), the swap line of top's or free's summary (`MiB Swap: 0.0
total, ...`, facts/kernel_knobs.swap_summary), its kernel (`Kernel: Linux 6.8.0-124-generic`), torch's capability warning naming a GPU CUDA listed (facts/gpus.TORCH_WARNED:
`Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.`), Lightning's notice naming its CUDA device
(facts/gpus.LIGHTNING_DEVICE: `You are using a CUDA device ('NVIDIA L4') that has Tensor Cores.`), a library loaded from WSL 2's driver mount
(facts/platform.WSL_LIBRARY: `/usr/lib/wsl/lib/libnvidia-ml.so.1`), sudo's password prompt for a login user and a
command that rebuilds the machine's boot image or reboots it (facts/container.MACHINE_SHELL: `[sudo] password for h100:`,
`depmod -a; update-initramfs -u; reboot`), a line of a CUDA API-remoting frontend
(facts/platform.REMOTING_FRONTENDS: `/usr/local/harp/lib/libvirtdev-frontend.so.0`), vLLM's graph mode on a line of
its own (facts/serving_logs.STATED_GRAPH_MODE: `cudagraph_mode=FULL_AND_PIECEWISE`), each also as a
two-column Markdown table row (`| **PyTorch** | 2.11.0+cu130 |`, facts/_parse.stated_line). Its spans yield to every block recogniser's
(registry `fallback`): a line is evidence here only where no recogniser read it as part of its
output. Each run of such lines is appended to the pasted document EVIDENCE_LINES, which no fact
reads as a whole output: the checks that need more say so (unknown, with what to paste).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts._parse import LINE_LOOK_CHARS, stated_line
from stackaudit.facts.boot_loader import stated_os_tool
from stackaudit.facts.container import (
    HOME_LLAMAFILE_MODULE,
    HOME_PYTHON_FILE,
    IMAGE_WORKDIR,
    MACHINE_SHELL,
    gpu_stack_pod,
    minikube_node,
)
from stackaudit.facts.cuda_ran import (
    DRIVER_FOUND_INSIDE,
    RUNTIME_NEEDLES,
    TORCH_CUDA_ANSWERED,
    TORCH_CUDA_QUERY,
    TORCH_CUDA_TENSOR,
    TRTLLM_LEDGER,
    ran_in_lines,
    runtime_in_line,
    trl_cuda_devices,
)
from stackaudit.facts.cuda_ran import NEEDLES as CUDA_RAN_NEEDLES
from stackaudit.facts.docker import (
    AIO_SMI_RAN,
    NGC_BANNER,
    NGC_CHECK_LINE,
    cuda_image_banner,
    ngc_banner_line,
    tgi_info_line,
)
from stackaudit.facts.gpu_events import stated_xid_list, stated_xids
from stackaudit.facts.gpus import (
    CMAKE_CUDA_ARCHS,
    GGML_CUDA_ASKED,
    LIGHTNING_DEVICE,
    OTHER_GPU_NEEDLES,
    TORCH_DEVICE_NAME,
    TORCH_PRINTED_VERSION,
    TORCH_WARNED,
    UNSLOTH_BANNER,
    csv_mode_line,
    nvrm_mem_line,
    other_gpu_line,
    trtllm_ledger_span,
)
from stackaudit.facts.kernel_knobs import SWAP_NEEDLE, dkms_installed, swap_summary
from stackaudit.facts.nvidia import (
    HEADER_DRIVER_FIELD,
    OPEN_PACKAGE,
    PROC_VERSION_BANNER,
    QUERY_ROW,
    QUERY_ROW_NAME_FIRST,
    SAID_DRIVER_NEEDLES,
    STATED_CUDA,
    STATED_DRIVER,
    STATED_TOOLKIT,
    installed_flavour,
    paired_cuda,
    stated_cuda_item,
    used_open,
)
from stackaudit.facts.nvidia_daemons import daemon_event
from stackaudit.facts.nvidia_smi import QUERY_FIELDS
from stackaudit.facts.peer_access import (
    DATA_TEST_NEEDLES,
    PEER_COPY_NEEDLES,
    SIMPLE_P2P_NEEDLES,
    SIMPLE_P2P_STEP,
    answer_end,
    data_test,
    is_refusal_line,
    peer_copy_end,
)
from stackaudit.facts.peer_access import NEEDLES as PEER_NEEDLES
from stackaudit.facts.platform import REMOTING_LINE, REMOTING_NEEDLES, WSL_LIBRARY
from stackaudit.facts.python_env import (
    PIP_LIST_GGML,
    STATED_PYTHON,
    STATED_RELEASE_WORDS,
    STATED_TORCH_BUILD,
    STATED_VERSION,
    TORCH_PRINTED_AVAILABLE,
    TORCH_PRINTED_CUDA,
    listed_engine_image,
    listed_tgi_release,
    uv_installed,
)
from stackaudit.facts.serving_logs import OLLAMA_DISCOVERY_MSGS, STATED_GRAPH_MODE
from stackaudit.facts.shm import NGC_SHM_NOTE
from stackaudit.facts.sources import EVIDENCE_LINES, NVIDIA_DAEMON_LOG, NVIDIA_PROC_VERSION
from stackaudit.facts.symptoms import DEBUG_NODE_POD, is_symptom
from stackaudit.facts.symptoms import NEEDLES as SYMPTOM_NEEDLES
from stackaudit.facts.system import (
    BARE_KERNEL_NEEDLES,
    BARE_KERNEL_RELEASE,
    OS_KERNEL,
    PLATFORM_KERNEL,
    STATED_KERNEL,
)
from stackaudit.importers._paste import looks_like_command
from stackaudit.importers._scan import FENCE, Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, file_content, importer

# Names of `nvidia-smi -q` (whatever their indentation), with a value after ` : `; not a section's
# one-word fields (`Current`, `State`), which other outputs print too.
_SMI_KEYS = tuple(k for k, (depth, _) in QUERY_FIELDS.items() if depth < 2 or " " in k)
_SMI_FIELD = re.compile(r"(?:^|\s)(?:" + "|".join(re.escape(k) for k in _SMI_KEYS) + r")\s+:\s*\S")
# Elements of `nvidia-smi -q -x`, by the names of their families.
_SMI_XML = re.compile(r"^\s*(?=.*</)<(?:driver_version|cuda_version|attached_gpus|product_name|product_architecture|"
                      r"persistence_mode|gsp_firmware_version|vbios_version|virtualization_mode|compute_mode|"
                      r"clocks_event_reason|clocks_throttle_reason|clocks_event_reasons|clocks_throttle_reasons|"
                      r"applications_clocks|max_clocks|power_readings|gpu_power_readings|fabric|pci_bus_id|"
                      r"link_widths|pcie_gen|mig_mode|ecc_mode|retired_pages|remapped_rows)\w*>")
# Fabric Manager's events that only its own words show (facts/nvidia_daemons.py `daemon_event`).
_DAEMON_EVENTS = frozenset(("mismatch", "nvswitch", "no-nvswitch"))
_LINK = re.compile(r"^\s*(?:LnkSta|LnkCap|LnkCtl2?|LnkSta2):\s")
# The versions of nvidia-smi's table header, flattened onto one line, or its library's as a list's item (`- NVIDIA-SMI:
# 535.309.01`, corpus 2706: facts/nvidia._SMI_STATED); nvidia-smi's failure to reach the driver. A
# hardware summary's driver (`- NVIDIA driver version: 535.161.07`, `- NVIDIA driver 595.91.07`) is STATED_DRIVER's.
_SMI_HEADER = re.compile(r"\b(?i:Driver Version|CUDA Version):\s*\d+\.\d+|NVIDIA-SMI has failed because|"
                         r"^[\s>*\u2022-]{0,8}NVIDIA-SMI(?: version)?\s{0,4}:\s{0,4}`?\d{3}\.\d")
# A limit of `ulimit -a` on its own (bash's form).
_LIMIT = re.compile(r"^\s*(?:max locked memory|open files|stack size|max user processes|core file size|"
                    r"virtual memory|file size)\s+\((?:[\w]+, )?-\w\)\s+(?:unlimited|\d+)\s*$")
# `systemctl status`'s first line for a unit of the NVIDIA stack (the daemons' own blocks have their recogniser,
# importers/nvidia_daemons.py): `● nv_peer_mem.service - LSB: ...`, `× nvidia-powerd.service - ...`, `○ unit.service`.
_UNIT_HEAD = re.compile(r"^\s*(?:(?:[●○×*]\s*)?(?:nv_peer_mem|nvidia[\w-]*|nv-[\w-]+)\.service\s+-\s|"
                        r"[●○×*]\s*(?:nv_peer_mem|nvidia[\w-]*|nv-[\w-]+)\.service\s*$)")
# CUDA's answer to whether one GPU can reach another's memory, as the CUDA samples print it (simpleP2P).
_PEER = re.compile(r"^\s*(?:>\s*)?Peer access from .{1,80} \(GPU\d+\) -> .{1,80} \(GPU\d+\) : (?:Yes|No)\s*$")
# ollama's GPU discovery (facts/gpus.py reads the GPUs its `inference compute` lines name).
# With OLLAMA_DEBUG, its reading of each GPU's memory (`msg="updating cuda memory data" gpu=GPU-… name="NVIDIA …"
# … now.total="79.3 GiB" now.free="78.8 GiB" now.used="424.2 MiB"`, OLLAMA_DISCOVERY_MSGS), and the rest of such a
# line a paste broke (`B" before.free=… now.used=`: a system memory line has `now.free_swap` there, not `now.used`).
# ollama 0.1's lowest compute capability of its GPUs (`gpu.go:140: INFO CUDA Compute Capability detected: 8.6`).
_OLLAMA = re.compile(rf'\bmsg="?(?:{OLLAMA_DISCOVERY_MSGS}|detected GPUs" .*\blibrary=\S*libcuda\.so\.\d)|'
                     r'\b\d+ MB VRAM available, loading up to \d+ |'
                     r'^\S{0,8}" before\.free="[^"]*" now\.total="[^"]*" '
                     r'now\.free="[^"]*" now\.used=|'
                     r'^\s*device count \d+\s*$|'
                     r'^\s*\[GPU-[0-9a-fA-F-]+\] Compute Capability \d+\.\d+\s*$|'
                     r'^\s*\[\d{1,2}\] CUDA device name: \S|'
                     r'\b(?:CUDA|CPU mode\.) Compute Capability detected: \d')
# The CUDA runtime's error, as PyTorch and most CUDA programs print it (`RuntimeError: CUDA error: an illegal memory
# access was encountered`, then torch's `Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/...`):
# a CUDA program failing on a GPU. Its words are cudaGetErrorString's for the errors of a GPU at work (CUDA Runtime API,
# cudaError enum: https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html), or the enum's own name.
CUDA_ERROR_STRINGS = (
    "an illegal memory access was encountered", "an illegal instruction was encountered", "misaligned address",
    "device-side assert triggered", "unspecified launch failure", "the launch timed out and was terminated",
    "too many resources requested for launch", "out of memory", "invalid device ordinal", "initialization error",
    "all CUDA-capable devices are busy or unavailable", "CUDA-capable device(s) is/are busy or unavailable",
    "uncorrectable ECC error encountered", "unknown error", "operation not supported", "operation not permitted",
    "system has unsupported display driver / cuda driver combination", "invalid argument", "invalid resource handle",
    "invalid configuration argument", "uncorrectable NVLink error detected during the execution",
    "forward compatibility was attempted on non supported HW", "no CUDA-capable device is detected",
)
_CUDA_ERROR = re.compile(r"\bCUDA error: (?:" + "|".join(re.escape(e) for e in CUDA_ERROR_STRINGS) + r")"
                         r"|\bcudaError[A-Z][A-Za-z]+\b")
# libnvidia-container's own debug line (`nvidia-container-cli -k -d /dev/tty info`, glog's form: `I0418 18:12:58.648174
# 217303 nvc.c:376] initializing library context (version=1.9.0, build=...)`, its sources nvc.c, nvc_info.c,
# nvc_mount.c, nvc_ldcache.c; nvidia-container-toolkit#260): the container runtime's GPU hook at work.
_NVC_DEBUG = re.compile(r"^\s*[IWE]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ nvc(?:_[a-z]+)?\.c:\d+\] ")
# `kubectl describe pod` of a pod of the Kubernetes GPU stack: its owner, a DaemonSet of the GPU Operator or the device
# plugin (`Controlled By:  DaemonSet/nvidia-driver-daemonset`), or a container's image of NVIDIA's GPU stack on NGC
# (`Image:  nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.1.0`, gpu-operator#258); a line of such a pod's log behind
# the tag `kubectl logs --prefix` gives it (`[pod/nvidia-driver-daemonset-8l7bp/nvidia-driver-ctr] Done, now waiting for
# signal`, gpu-operator#285).
_GPU_STACK_DESCRIBE = re.compile(r"^\s*(?:\[pod/(?:nvidia-[\w-]+|gpu-operator[\w-]*|gpu-feature-discovery[\w-]*)/[\w-]+\]\s+\S|"
                                 r"Controlled By:\s+DaemonSet/(?:nvidia-[\w-]+|gpu-feature-discovery[\w-]*|"
                                 r"nvdp-nvidia-device-plugin[\w-]*)|Image:\s+nvcr\.io/nvidia/(?:cloud-native/|k8s/|"
                                 r"gpu-operator|driver:|k8s-device-plugin|gpu-feature-discovery))")
_NVRM = re.compile(r"\bNVRM: (?:Xid|GPU|loading|API mismatch|RmInitAdapter|The NVIDIA)")
# A field's ` : `, an element's closing `</`, a link state's `Lnk`, `NVRM`: few lines of a long log hold them.
_NEEDLES = (*BARE_KERNEL_NEEDLES, "Platform: Linux-", "Max memory: ", "evice name", "evice Name", "evice(s):", "CUDA availab", "CUDA Availab", "CUDA version", "CUDA Version", "site-packages/", "/.llamafile/", "/workspace/", "[sudo] password for", "update-initramfs", "dracut", "update-grub", "grub-mkconfig", "grub2-mkconfig", "reboot", "CMAKE_CUDA_ARCHITECTURES", "torch.cuda.", "torch.__version__", "_CUBLAS=", "_CUDA=", "_CUDA:BOOL=", "cudagraph_mode", "Compatibility mode", " : ", "</", "Lnk", "NVRM", "Version:", "NVIDIA-SMI", "open files", "locked memory",
            "stack size", "user processes", "core file size", "virtual memory", "file size", *SYMPTOM_NEEDLES,
            "CUDA error: ", "cudaError", "nvc.c:", "nvc_", "Controlled By:", "nvcr.io/nvidia/", "[pod/",
            "interface version", "NVSwitch", "NV_WARN", ".service", "inference compute", "compatible GPUs",
            "LLM libraries", "device count", "cuda memory data", "now.used", "VRAM available", *PEER_NEEDLES, *DATA_TEST_NEEDLES, *SIMPLE_P2P_NEEDLES, "watcher", "Starting Plugins", "Loading NVML",
            "Loading configuration", "Running with config", "plugins", "Registered device plugin", "No devices found", "NVIDIA GPU detected",
            "valid resources", "NVML platform", "device-plugin", "GPU config", "gpu config", "initialize nvml", "device manager",
            "Found Nvidia GPU", "GPU partition", "nvml initialized", "nvml return code", "multi-instance GPU", "' for ", "Setting up runtime", "/usr/local/nvidia/toolkit",
            "NVIDIA container toolkit", "/runtime/", "nvidia-toolkit", "signal to", "signaled", "Shutting down runtime", "XidCriticalError", "xid", "marked unhealthy", "-validation", "stream closed", "waiting for nvidia drivers", "chroot with args", "auto installation is disabled",
            "GPU driver libraries", "SHMEM allocation", "which is of cuda capability", "that has Tensor Cores", "/usr/lib/wsl/", "libnvidia-compute-",
            "GRPC server", ", NVIDIA ", ", Tesla ", ", Quadro ", " MiB, ", "compilation tools", "Toolkit:", "tool kit:", "cuda:", "cuda :", "cuda version", "cuda/cudnn version", "cuda 9", "cuda 8", "cuda 7", "cuda 1", "cuda**", "cuda |", "cuda|", "driver:", "driver ", "driver|", "nvidia v", "nvidia 3", "nvidia 4", "nvidia 5", "nvidia 6", "-open", "kernel module", "Open driver", "torch:", "torch ", "：", "torch=", "torch**", "driver**", "kernel:",
            "kernel |", "kernel**", "image:", "image**:", "vllm:", "sglang:", "vllm 0", "sglang 0", "vllm  ", "sglang  ", "tensorrt-llm", "tensorrt_llm", "trtllm", "trt-llm", "version of vllm", "version of sglang", "tgi", "text-generation-inference", "text generation inference", "versions of", "detected GPUs",
            "llama_cpp_python", "llama-cpp-python", "llama_cpp-python", "llama-cpp_python", "python 3", "python: 3",
            "+ onnxruntime", "+ vllm", "+ tensorrt",  # uv's record of a package it installed (python_env.uv_installed)
            "| python", "|python", "python**",
            "] Compute Capability", "] CUDA device name:", "Capability detected:", "kubectl debug", "minikube start", ": installed", "[installed", SWAP_NEEDLE, *CUDA_RAN_NEEDLES, *PEER_COPY_NEEDLES, *RUNTIME_NEEDLES,
            *OTHER_GPU_NEEDLES, "os:", "os :", "os**", "| os", "|os", "operating system", "os version", "linux distro",
            "## ",  # an issue form's heading (form_answer)
            *REMOTING_NEEDLES,  # a CUDA API-remoting frontend's lines (facts/platform.REMOTING_FRONTENDS)
            "nvrmmeminit",  # Tegra's memory manager on a Jetson (facts/gpus.nvrm_mem_line)
            "mode as 'csv'",  # the container toolkit's CSV mode on a Jetson (facts/gpus.csv_mode_line)
            *SAID_DRIVER_NEEDLES)  # the user's sentence naming the driver they run (facts/nvidia.STATED_DRIVER)


# How far above a Python session's query its earlier lines are read with it (the session's own lines, unbroken).
_SESSION_LOOK = 12


def _daemon_line(line: str) -> bool:
    """Whether a line is Fabric Manager's own words without its journal tag (quoted in prose, a console):
    the version mismatch it exits on, or what it says of the NVSwitches."""
    found = daemon_event(line) if "version" in line or "NVSwitch" in line or "NV_WARN" in line else None
    return found is not None and found[1] in _DAEMON_EVENTS


# A summary's key alone on its line (`NVIDIA driver:`, `- CUDA:`, `**Driver:**`), its value on the next line.
_HEADING_KEY = re.compile(r"^\W{0,4}([A-Za-z][\w ./()-]{0,40}?):\W{0,4}$")
_BULLET = re.compile(r"^[-*+•]\s+")


def headed_value(lines: list[str], i: int) -> tuple[str, int, int]:
    """The `Key: value` line a summary's key alone on line i and its value on the next line state together (the value's
    code quotes dropped), the value's line and the line after the statement; ("", i, i) where line i is no such key or
    the next line holds no short value. The value may stand alone in a code block one blank line below the key (`-
    GPU:`, a blank line, then ```` ```text ````, `NVIDIA L4` and the closing fence, corpus 2756): the block's one line.

    >>> headed_value(["NVIDIA driver:", "`595.71.05` open kernel driver"], 0)
    ('NVIDIA driver: 595.71.05 open kernel driver', 1, 2)
    >>> headed_value(["Driver:", "- 580.173.02"], 0)
    ('Driver: 580.173.02', 1, 2)
    >>> headed_value(["- GPU:", "", "  ```text", "  NVIDIA L4", "  ```"], 0)
    ('GPU: NVIDIA L4', 3, 5)
    """
    m = _HEADING_KEY.match(lines[i]) if i + 1 < len(lines) and lines[i].rstrip().endswith((":", ":**", ":__")) else None
    if m is None:
        return "", i, i
    at, end = i + 1, i + 2
    if i + 4 < len(lines) and not lines[i + 1].strip() and FENCE.match(lines[i + 2]) and FENCE.match(lines[i + 4]):
        at, end = i + 3, i + 5  # a code block of one line: its opening fence, the value, its closing fence
    # The value as a list's one item under its heading (`Driver:` then `- 580.173.02`, corpus 1209): its bullet dropped.
    value = _BULLET.sub("", lines[at].replace("`", "").strip())
    if not value or len(value) > 80 or _HEADING_KEY.match(value) or FENCE.match(lines[at]):
        return "", i, i
    return f"{m.group(1).strip()}: {value}", at, end


# A YAML key with a plain scalar value (`  message: Pod Allocate failed due to ...`), which YAML folds on to the deeper
# lines under it that hold no key of their own (`kubectl get pod -o yaml`'s status message, kuberay#1414).
_YAML_KEY_VALUE = re.compile(r"^(?P<indent>\s*)(?:-\s+)?[A-Za-z][\w.-]*:\s+(?P<value>[^\s'\"|>&*!{\[#].*)$")
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?[\w.-]+:(?:\s|$)")
_FOLD_LINES = 8  # a status message wraps at kubectl's 80 columns: a few lines


def folded_value(lines: list[str], i: int) -> tuple[str, int]:
    """(the line, its value's folded lines joined with one space, the line after them) where line i is a YAML `key:
    value` whose plain value goes on deeper-indented lines below it with no key of their own; ("", i) otherwise.

    >>> folded_value(["  message: Pod Allocate failed due to pod x container", "    y unable to find GPU", "  phase: F"], 0)
    ('  message: Pod Allocate failed due to pod x container y unable to find GPU', 2)
    """
    m = _YAML_KEY_VALUE.match(lines[i])
    if m is None:
        return "", i
    depth, end = len(m.group("indent")), i + 1
    while end < min(len(lines), i + 1 + _FOLD_LINES) and lines[end].strip() \
            and len(lines[end]) - len(lines[end].lstrip()) > depth and not _YAML_KEY.match(lines[end]):
        end += 1
    if end == i + 1:
        return "", i
    return " ".join([lines[i].rstrip(), *(x.strip() for x in lines[i + 1:end])]), end


# An issue form's heading (GitHub renders each field of a `.github/ISSUE_TEMPLATE/*.yml` form as `### <label>`, the
# answer under it after a blank line): `### Kernel Release` (NVIDIA/open-gpu-kernel-modules' bug form), `### GPU` and
# `### Ollama version` (ollama's). A label may hold a colon: `### Hardware: GPU` (the open kernel modules' bug form).
_FORM_HEADING = re.compile(r"^#{2,4}\s+([A-Za-z][\w ./():-]{0,40}?)\s*$")


# The labels of an issue form's GPU field: `### GPU` (ollama's bug report form), `### Hardware: GPU`
# (NVIDIA/open-gpu-kernel-modules' bug form, .github/ISSUE_TEMPLATE/bug_report.yml), `### GPU model` (invoke-ai/InvokeAI's
# bug form, under its `### GPU vendor`; corpus 2666), `### GPU name` (NVIDIA/FasterTransformer's bug form; corpus 2742, 2743).
FORM_GPU_LABELS = frozenset({"GPU", "Hardware: GPU", "GPU model", "GPU name"})


def form_answer(lines: list[str], i: int) -> tuple[str, str, int]:
    """(label, answer, the answer's line) where line i is an issue form's heading (_FORM_HEADING) and the next line
    that is not blank, one or two below, holds a short answer (at most 120 characters, no heading); ("", "", i)
    otherwise.

    >>> form_answer(["### Kernel Release", "", "5.14.21", "", "### Hardware: GPU"], 0)
    ('Kernel Release', '5.14.21', 2)
    """
    m = _FORM_HEADING.match(lines[i])
    j = next((k for k in range(i + 1, min(i + 3, len(lines))) if lines[k].strip()), None) if m else None
    answer = lines[j].replace("`", "").strip() if m and j is not None else ""
    if not m or j is None or not answer or len(answer) > 120 or answer.startswith("#"):
        return "", "", i
    return m.group(1).strip(), answer, j


def is_evidence(line: str) -> bool:
    """Whether a line, on its own, is known evidence (its first LINE_LOOK_CHARS read); a hardware summary's
    two-column Markdown table row is read as its `Key: value` line (facts/_parse.stated_line)."""
    line = stated_line(line[:LINE_LOOK_CHARS])
    if "\n" in line:  # a row that pairs several items states each (`torch / driver`)
        return any(is_evidence(part) for part in line.split("\n"))
    return bool(_SMI_FIELD.search(line) or _SMI_XML.match(line) or _LINK.match(line) or _NVRM.search(line)
                or _CUDA_ERROR.search(line) or _NVC_DEBUG.match(line) or _GPU_STACK_DESCRIBE.match(line)
                or _SMI_HEADER.search(line) or _LIMIT.match(line) or is_symptom(line) or bool(DEBUG_NODE_POD.search(line)) or _daemon_line(line)
                or _PEER.match(line) or SIMPLE_P2P_STEP.match(line) or _UNIT_HEAD.match(line) or _OLLAMA.search(line) or is_refusal_line(line)
                or gpu_stack_pod(line) != "" or minikube_node(line) is not None or data_test(line) is not None or STATED_TOOLKIT.search(line)
                or STATED_CUDA.search(line) or stated_cuda_item(line) or paired_cuda(line) != ""
                or OPEN_PACKAGE.search(line) or used_open(line) or installed_flavour(line) is not None or STATED_VERSION.match(line) or STATED_RELEASE_WORDS.search(line) or PIP_LIST_GGML.match(line)
                or uv_installed(line) is not None
                or STATED_PYTHON.match(line)
                or STATED_DRIVER.search(line)
                or STATED_TORCH_BUILD.search(line) or listed_engine_image(line) or listed_tgi_release(line) or STATED_KERNEL.match(line) or OS_KERNEL.match(line) or PLATFORM_KERNEL.match(line)
                or BARE_KERNEL_RELEASE.match(line) or bool(CMAKE_CUDA_ARCHS.search(line)) or bool(GGML_CUDA_ASKED.search(line)) or bool(STATED_GRAPH_MODE.match(line))
                or bool(NGC_CHECK_LINE.search(line)) or bool(AIO_SMI_RAN.search(line))
                or bool(ran_in_lines([line])) or bool(DRIVER_FOUND_INSIDE.search(line)) or runtime_in_line(line) is not None or swap_summary(line) is not None
                or dkms_installed(line) is not None or other_gpu_line(line) != "" or stated_os_tool(line) != ""
                or bool(NGC_SHM_NOTE.search(line)) or nvrm_mem_line(line) or csv_mode_line(line) or bool(TORCH_WARNED.search(line))
                or bool(LIGHTNING_DEVICE.search(line)) or bool(TORCH_DEVICE_NAME.match(line)) or bool(TORCH_PRINTED_AVAILABLE.match(line))
                or bool(TORCH_CUDA_ANSWERED.match(line))
                or ("__version__" in line and bool(TORCH_PRINTED_VERSION.match(line)))
                or bool(UNSLOTH_BANNER.search(line)) or bool(stated_xids(line))
                or bool(TORCH_PRINTED_CUDA.match(line)) or trl_cuda_devices(line)
                or bool(WSL_LIBRARY.search(line)) or bool(REMOTING_LINE.search(line)) or ("site-packages/" in line and bool(HOME_PYTHON_FILE.search(line)))
                or ("/.llamafile/" in line and bool(HOME_LLAMAFILE_MODULE.search(line)))
                or ("/workspace/" in line and bool(IMAGE_WORKDIR.search(line))) or bool(MACHINE_SHELL.search(line.strip())))


@importer("evidence line", "any line of known evidence no block recogniser took: an nvidia-smi field, XML "
          "element or version, a PCIe link state, an NVRM message, an Xid the user reports (a sentence that says it "
          "happened, a count, the driver's Xid record without its `NVRM:` tag, a list of them under a sentence that "
          "reports them), a ulimit, a log symptom, a CUDA sample's peer "
          "access answer, a refusal of peer access or a Python session's query of it, a `systemctl status` head of an NVIDIA unit, Fabric Manager's own words, ollama's GPU "
          "discovery, the Kubernetes device plugin's start lines (NVIDIA's and GKE's), the GPU Operator's toolkit "
          "container's lines, GKE's driver installer's wait for driver libraries, a `kubectl debug node/` session's "
          "start, a `minikube start` that runs the node as a container, a `dkms status` line of the installed nvidia "
          "module, a line of another vendor's GPU at work (ollama's ROCm discovery, ggml's Metal backend, ggml's Vulkan "
          "backend's AMD or Intel device), AMD's own "
          "tools' lines (rocm-smi's table and fields, rocminfo's GPU agent, amd-smi) and ROCm's variables set",
          needles=_NEEDLES, per_line=True, fallback=True)
def evidence_lines(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        # The loaded module's banner, pasted in a version list or prose, is the first line of the file it comes from
        # (/proc/driver/nvidia/version): the file's reader judges it (facts/nvidia.parse_proc_version).
        banner = PROC_VERSION_BANNER.search(lines[i]) if "NVRM version" in lines[i] else None
        if banner:
            text = lines[i][banner.start():].strip() + "\n"
            yield Found("evidence line", i, i + 1, file_content(NVIDIA_PROC_VERSION.path, text))
            continue
        # A row of `nvidia-smi --query-gpu=...,driver_version --format=csv,noheader` is read without the indentation a
        # list item's fence gives it (CommonMark drops it inside the fence, not where the paste is fenced again).
        if QUERY_ROW.match(lines[i]) or QUERY_ROW_NAME_FIRST.match(lines[i]):
            yield Found("evidence line", i, i + 1, document_appended(EVIDENCE_LINES.name, lines[i].strip() + "\n"))
            continue
        # A hardware summary's key on its own line with its value on the next (`NVIDIA driver:` then
        # ``595.71.05` open kernel driver`, corpus 1086) states what its `Key: value` line does: read as that line.
        joined, at, end = headed_value(lines, i)
        if joined and not is_evidence(lines[at]) and is_evidence(joined):
            yield Found("evidence line", i, end, document_appended(EVIDENCE_LINES.name, joined + "\n"))
            continue
        # A YAML status message folded over lines (`kubectl get pod -o yaml`, kuberay#1414, corpus 1932): read as the one
        # line it is.
        folded, after = folded_value(lines, i) if ":" in lines[i] else ("", i)
        if folded and not is_evidence(lines[i]) and is_evidence(folded):
            yield Found("evidence line", i, after, document_appended(EVIDENCE_LINES.name, folded.strip() + "\n"))
            continue
        # An issue form's field, its answer under its heading (`### Kernel Release`, then `5.14.21`, corpus 1787):
        # read as the `Label: answer` line they state together.
        label, answer, at = form_answer(lines, i)
        if label and not is_evidence(lines[at]) and is_evidence(joined := f"{label}: {answer}"):
            yield Found("evidence line", i, at + 1, document_appended(EVIDENCE_LINES.name, joined + "\n"))
            continue
        # An NGC image's start banner, or NVIDIA's CUDA image's, read with whether the paste shows it to its end
        # (facts/docker.ngc_banner_line).
        if NGC_BANNER.match(lines[i]) or cuda_image_banner(lines, i):
            yield Found("evidence line", i, i + 1, document_appended(EVIDENCE_LINES.name, ngc_banner_line(lines, i)))
            continue
        # Text Generation Inference's /info object: its image label read with the release the same object names
        # (facts/docker.tgi_info_line, corpus 1332), the one line that names the image's CUDA.
        if info := tgi_info_line(lines, i):
            yield Found("evidence line", i, i + 1, document_appended(EVIDENCE_LINES.name, info + "\n"))
            continue
        # A torch copy straight between GPUs whose shown result is zeros (facts/peer_access.peer_copy_zeros): the copy
        # line and its result, read with the lines of its snippet that define its source.
        if snippet := peer_copy_end(lines, i):
            # The span is the copy through its result: the lines above it are read into the document, not claimed (the
            # user's words there are still theirs); a code fence or a command line among them is not the snippet's.
            text = "\n".join(line for line in lines[snippet[0]:snippet[1]]
                             if not FENCE.match(line) and not (line.strip() and looks_like_command(line.strip())))
            yield Found("evidence line", i, snippet[1], document_appended(EVIDENCE_LINES.name, text + "\n"))
            continue
        # A stated CUDA line under the driver's own version field (`nvidia-container-cli info`'s `NVRM version:`, corpus
        # 1311) keeps that line above it, unclaimed, so the reader sees the CUDA as the driver's figure
        # (facts/nvidia.toolkit_from_evidence_lines).
        if i and STATED_CUDA.search(stated_line(lines[i])) and HEADER_DRIVER_FIELD.match(lines[i - 1]) \
                and not is_evidence(lines[i - 1]):
            text = lines[i - 1].strip() + "\n" + lines[i].strip() + "\n"
            yield Found("evidence line", i, i + 1, document_appended(EVIDENCE_LINES.name, text))
            continue
        # A Python session's torch.cuda.is_available() keeps the answer it printed (facts/cuda_ran.torch_answered), and
        # a tensor torch printed on a CUDA device is read (facts/cuda_ran.TORCH_CUDA_TENSOR), with the session's lines
        # above it (its torch's version: a ROCm build's True and `cuda:0` are HIP's), which stay unclaimed.
        end = answer_end(lines, i, TORCH_CUDA_QUERY) if "is_available()" in lines[i] else i
        session = end > i + 1
        if not session and "device='cuda:" in lines[i] and TORCH_CUDA_TENSOR.match(lines[i]):
            session, end = True, i + 1
        if session:
            start = i
            while start > max(0, i - _SESSION_LOOK) and lines[start - 1].strip() and not FENCE.match(lines[start - 1]):
                start -= 1
            yield Found("evidence line", i, end,
                        document_appended(EVIDENCE_LINES.name, "\n".join(lines[start:end]) + "\n"))
            continue
        # TensorRT-LLM's memory ledger keeps its total above and its components below (facts/cuda_ran.py).
        if "component creation attempt" in lines[i] and TRTLLM_LEDGER.search(lines[i]):
            start, end = trtllm_ledger_span(lines, i)
            text = "\n".join(line.strip() for line in lines[start:end] if line.strip())
            yield Found("evidence line", start, end, document_appended(EVIDENCE_LINES.name, text + "\n"))
            continue
        # A sentence that reports Xid events above the list naming them (`dmesg shows repeated NVIDIA Xid events ...:`,
        # corpus 2848): each item read with the sentence (facts/gpu_events.stated_xid_list).
        end, text = stated_xid_list(lines, i) if "xid" in lines[i].lower() else (i, "")
        if text:
            yield Found("evidence line", i, end, document_appended(EVIDENCE_LINES.name, text))
            continue
        # One span a line: a line a block recogniser took costs this reader that line, not its neighbours.
        if is_evidence(lines[i]):
            # A daemon's words go where its status and journal lines go (facts/nvidia_daemons.py plays them).
            name = NVIDIA_DAEMON_LOG.name if _daemon_line(lines[i]) else EVIDENCE_LINES.name
            # A Python session's peer-access query keeps the answer it printed (facts/peer_access.py).
            end = answer_end(lines, i)
            yield Found("evidence line", i, end, document_appended(name, "\n".join(lines[i:end]) + "\n"))
