"""The sources facts read, by name: one table shared by providers, importers, snapshots and tests.

A source's `title` is what "not in the source" messages and provenance lines name; its `hint` is
the cheapest thing a user can paste or run to supply it. Providers and importers take argv and paths
from here, never literals of their own, so that a live read, a snapshot member and a paste meet at
the same key (`Source.key`).
"""

from __future__ import annotations

from stackaudit.host.source import Source

# --- host basics ---------------------------------------------------------------------------------
UNAME = Source("uname", "`uname -a`", argv=("uname", "-a"), hint="paste `uname -a`")
PROC_CMDLINE = Source("proc_cmdline", "/proc/cmdline", path="/proc/cmdline", hint="paste `cat /proc/cmdline`")
# bbswitch (Bumblebee's ACPI switch of an Optimus laptop's discrete GPU): one line per GPU, `0000:01:00.0 ON`.
PROC_BBSWITCH = Source("proc_bbswitch", "/proc/acpi/bbswitch", path="/proc/acpi/bbswitch",
                       hint="paste `cat /proc/acpi/bbswitch`")
LSCPU = Source("lscpu", "`lscpu`", argv=("lscpu",), hint="paste `lscpu`")
# The kernel's CPU table; a paste shows a processor's lines (`model name`, `flags`), read for what lscpu does not
# add: the kernel's own feature flags (`pti`).
PROC_CPUINFO = Source("proc_cpuinfo", "/proc/cpuinfo", path="/proc/cpuinfo",
                      hint="paste `grep -m1 -E '^flags' /proc/cpuinfo`")
NODE_SYSFS = Source("node_sysfs", "/sys/devices/system/node", path="/sys/devices/system/node")
NUMACTL_H = Source("numactl_h", "`numactl -H`", argv=("numactl", "-H"), hint="paste `numactl -H`")
# numastat's per-node table (`numastat -m`, `numastat -p PID`): its column row names every node (`Node 0  Node 1  Total`).
NUMASTAT = Source("numastat", "`numastat`", argv=("numastat", "-m"), hint="paste `numactl -H`")
PROC_MODULES = Source("proc_modules", "/proc/modules", path="/proc/modules", hint="paste `lsmod`")
LSMOD = Source("lsmod", "`lsmod`", argv=("lsmod",), hint="paste `lsmod`")
DMESG = Source("dmesg", "`dmesg`", argv=("dmesg",), hint="paste `sudo dmesg` (the whole log, from boot)")
PROC_SYS = Source("proc_sys", "/proc/sys", path="/proc/sys", hint="paste `sysctl -a`")
# A pasted `sysctl -a` is recorded here whether whole or grepped; the parser tells which by its size.
SYSCTL_A = Source("sysctl_a", "`sysctl -a`", argv=("sysctl", "-a"),
                  hint="paste `sysctl -a` (or `sysctl kernel.numa_balancing vm.swappiness`)")
PROC_SELF_LIMITS = Source("proc_self_limits", "/proc/self/limits", path="/proc/self/limits", hint="paste `ulimit -a`")
# A shell builtin (bash, dash, zsh): no argv runs it without a shell, so it is a pasted document only.
ULIMIT_A = Source("ulimit_a", "`ulimit -a`", doc=True, hint="paste `ulimit -a` from the shell that starts the engine")

# --- df ------------------------------------------------------------------------------------------
SHM_PATH = "/dev/shm"
# What the shm fact runs live, then the whole table (the container fact reads its root filesystem).
DF_SHM = Source("df_shm", "`df -k -P /dev/shm`", argv=("df", "-k", "-P", SHM_PATH), hint="paste `df -h /dev/shm`")
DF_K_P = Source("df_k_p", "`df -k -P`", argv=("df", "-k", "-P"), hint="paste `df -h`")


def _df_source(flags: tuple[str, ...], path: str) -> Source:
    argv = ("df", *flags, *((path,) if path else ()))
    name = "_".join(a.strip("-/").replace("/", "_").lower() for a in argv if a.strip("-/"))
    return Source(name, f"`{' '.join(argv)}`", argv=argv, hint="paste `df -h /dev/shm`" if path else "paste `df -h`")


# A pasted df table, recorded under the argv it shows: its prompt line's where that is one of these, else
# the flags its header shows (`Size` for -h, `1K-blocks` for none, `1024-blocks` for -P, `Type` for -T).
DF_PASTED: tuple[Source, ...] = tuple(
    _df_source((*flags, *typed), path)
    for path in (SHM_PATH, "")
    for flags in (("-h",), (), ("-P",), ("-B1",), ("-k",))
    for typed in ((), ("-T",))
)
DF_TABLES: tuple[Source, ...] = (DF_SHM, DF_K_P, *DF_PASTED)

# --- CPU frequency and idle states -------------------------------------------------------------
CPUFREQ_SYSFS = Source("cpufreq_sysfs", "/sys/devices/system/cpu/cpufreq", path="/sys/devices/system/cpu/cpufreq",
                       hint="paste `cpupower frequency-info`")
CPUIDLE_SYSFS = Source("cpuidle_sysfs", "/sys/devices/system/cpu/cpuidle", path="/sys/devices/system/cpu/cpuidle",
                       hint="paste `cpupower idle-info`")
# Read alongside the idle states: the PM QoS limit and what may have set it.
CPU_DMA_LATENCY = Source("cpu_dma_latency", "/dev/cpu_dma_latency", path="/dev/cpu_dma_latency",
                         hint="run the audit on the host as root")
TUNED_ACTIVE_PROFILE = Source("tuned_active_profile", "/etc/tuned/active_profile", path="/etc/tuned/active_profile",
                              hint="paste `tuned-adm active`")
INTEL_IDLE_MAX_CSTATE = Source("intel_idle_max_cstate", "/sys/module/intel_idle/parameters/max_cstate",
                               path="/sys/module/intel_idle/parameters/max_cstate",
                               hint="paste `cat /sys/module/intel_idle/parameters/max_cstate`")
CPUPOWER_FREQUENCY_INFO = Source("cpupower_frequency_info", "`cpupower frequency-info`",
                                 argv=("cpupower", "frequency-info"), hint="paste `cpupower frequency-info`")
CPUPOWER_IDLE_INFO = Source("cpupower_idle_info", "`cpupower idle-info`", argv=("cpupower", "idle-info"),
                            hint="paste `cpupower idle-info`")

# --- NVIDIA --------------------------------------------------------------------------------------
NVML = Source("nvml", "NVML", nvml=True, hint="run on the host with the NVIDIA driver loaded")
# `nvidia-smi -q` queries every field of every GPU: seconds on an 8-GPU host.
NVSMI_XML = Source("nvsmi_xml", "`nvidia-smi -q -x`", argv=("nvidia-smi", "-q", "-x"), hint="paste `nvidia-smi -q`",
                   timeout_s=30.0)
NVSMI_QUERY = Source("nvsmi_query", "`nvidia-smi -q`", argv=("nvidia-smi", "-q"), hint="paste `nvidia-smi -q`",
                     timeout_s=30.0)
NVSMI_TABLE = Source("nvsmi_table", "`nvidia-smi`", argv=("nvidia-smi",), hint="paste `nvidia-smi`", timeout_s=30.0)
# A GPU monitor's rows pasted (nvtop's device headers and meters, gpustat's line per GPU), recorded as sections of
# `nvidia-smi -q` text (importers/nvtop.py): a lesser source than nvidia-smi's own outputs, read where none is pasted.
GPU_MONITOR = Source("gpu_monitor", "pasted GPU monitor rows (nvtop, gpustat)", doc=True, hint="paste `nvidia-smi`")
# `nvidia-smi --version`: the versions of nvidia-smi, NVML, the loaded driver and the CUDA it supports.
NVSMI_VERSION = Source("nvsmi_version", "`nvidia-smi --version`", argv=("nvidia-smi", "--version"),
                       hint="paste `nvidia-smi --version`")
# `nvidia-smi -L`: a line per GPU that NVML lists (in a container, those given to it), MIG devices under their GPU.
NVSMI_LIST = Source("nvsmi_list", "`nvidia-smi -L`", argv=("nvidia-smi", "-L"), hint="paste `nvidia-smi -L`",
                    timeout_s=30.0)
NVSMI_TOPO_M = Source("nvsmi_topo_m", "`nvidia-smi topo -m`", argv=("nvidia-smi", "topo", "-m"),
                      hint="paste `nvidia-smi topo -m`")
NVSMI_NVLINK_S = Source("nvsmi_nvlink_s", "`nvidia-smi nvlink -s`", argv=("nvidia-smi", "nvlink", "-s"),
                        hint="paste `nvidia-smi nvlink -s`")


def _p2p_source(mode: str) -> Source:
    argv = ("nvidia-smi", "topo", "-p2p", mode)
    return Source(f"nvsmi_p2p_{mode}", f"`{' '.join(argv)}`", argv=argv, hint="paste `nvidia-smi topo -p2p rw`")


# `nvidia-smi topo -p2p <cap>`: read/write (rw, r, w), NVLink (n), atomics (a), prop (p) status.
NVSMI_P2P: dict[str, Source] = {mode: _p2p_source(mode) for mode in ("rw", "r", "w", "n", "a", "p")}
# A pasted -p2p matrix with no command line above it: which capability it shows is not in the paste.
NVSMI_P2P_UNNAMED = Source("nvsmi_p2p_matrix", "pasted `nvidia-smi topo -p2p` matrix (capability not shown)",
                           doc=True, hint="paste `nvidia-smi topo -p2p rw` with its command line")

# --- PCI and RDMA ----------------------------------------------------------------------------------
PCI_SYSFS = Source("pci_sysfs", "/sys/bus/pci/devices", path="/sys/bus/pci/devices")
LSPCI_VVV = Source("lspci_vvv", "`lspci -vvv`", argv=("lspci", "-D", "-nn", "-vvv"), hint="paste `sudo lspci -vvv`")


def _lspci_source(flags: tuple[str, ...]) -> Source:
    argv = ("lspci", *flags)
    name = "_".join(["lspci", *(f.strip("-").lower() for f in flags)]) + "_pasted"
    return Source(name, f"`{' '.join(argv)}`", argv=argv, hint="paste `sudo lspci -vvv`")


# A pasted listing, recorded under the argv it shows: its prompt line's where that is one of these, else
# the flags its lines show (a domain in the addresses: -D; `[0302]` class codes: -nn; indented detail: -vvv).
LSPCI_PASTED: tuple[Source, ...] = tuple(
    _lspci_source((*domain, *ids, *verbose))
    for domain in ((), ("-D",)) for ids in ((), ("-nn",)) for verbose in ((), ("-v",), ("-vv",), ("-vvv",))
    if (*domain, *ids, *verbose) != LSPCI_VVV.argv[1:]
)
# `lspci -tv` / `lspci -t` pasted: the bus tree, recorded under one argv (facts/lspci.py parse_lspci_tree).
LSPCI_TREE = Source("lspci_tree", "`lspci -tv`", argv=("lspci", "-tv"), hint="paste `lspci -tv`")
# The listing VFIO guides print (`IOMMU Group N:` headings over `lspci -nns` lines): a script's output.
IOMMU_GROUP_LISTING = Source("iommu_group_listing", "pasted IOMMU group listing", doc=True,
                             hint="paste the IOMMU group listing (`IOMMU Group N:` and its lspci -nns lines)")
INFINIBAND_SYSFS = Source("infiniband_sysfs", "/sys/class/infiniband", path="/sys/class/infiniband",
                          hint="paste `ls /sys/class/infiniband` or an NCCL_DEBUG=INFO log")

# The host names a pasted log's line prefixes give (syslog, journal, Talos): what `_paste.view` takes off.
LOG_LINE_HOSTS = Source("log_line_hosts", "the host names of pasted log lines", doc=True, hint="paste `uname -a`")
# The shell prompts of a paste, one a line: the host the prompt names (`root@802f556c99c8:/# nvidia-smi`; empty for
# `$ `), a tab and the command typed at it: where that command ran, and what it printed under it.
PROMPT_HOSTS = Source("prompt_hosts", "pasted shell prompts: their hosts and commands", doc=True,
                      hint="paste `cat /proc/1/cgroup` and `ls -a /` where the command ran")
# The environments the paste's shell prompts name in their prefix, and their users, one a line: the environment
# (`deit92` of `(deit92) [user@gpuhost deit]$`; empty for `kgk2@bock:~$`), a tab, the prompt's user, a tab and its host;
# for a prompt of a home directory alone (`~/tabbyAPI$ python3 main.py`), a tab and that prompt after them.
PROMPT_ENVS = Source("prompt_envs", "pasted shell prompts' environment prefixes and users", doc=True,
                     hint="paste `cat /proc/1/cgroup` and `ls -a /` where the command ran")
# A journal's or syslog's tag (`ollama[1773]`), or the process a vLLM or Ray line's prefix names (`APIServer pid=1`).
LOG_LINE_PROGRAMS = Source("log_line_programs", "the programs (with their PIDs) pasted log line prefixes name",
                           doc=True, hint="paste `journalctl -u <engine>`")

# --- containers ------------------------------------------------------------------------------------
# `nvidia-container-cli info`'s device blocks (`Model:`, `Brand:`, `Bus Location:`, `Architecture:`): the GPUs the
# container toolkit's library finds through the driver, on the side that starts the containers.
NVC_INFO = Source("nvc_info", "`nvidia-container-cli info`", doc=True, hint="paste `nvidia-container-cli info`")
DOCKER_PS = Source("docker_ps", "`docker ps -q`", argv=("docker", "ps", "-q"), hint="paste `docker inspect <container>`")
# `docker inspect <name>` names containers the audit cannot know in advance: a pasted document.
DOCKER_INSPECT = Source("docker_inspect", "pasted `docker inspect`", doc=True,
                        hint="paste `docker inspect <container>` (run on the Docker host)")
# The same JSON cut to a part of it (a `"HostConfig": {` fragment, an object, lines elided with `...`):
# what it shows is read, what it leaves out stays unknown.
DOCKER_INSPECT_EXCERPT = Source("docker_inspect_excerpt", "pasted `docker inspect` excerpt", doc=True,
                                hint="paste the whole `docker inspect <container>` output")
# Container specs people paste instead: how the container was started, not what it runs with now.
DOCKER_RUN = Source("docker_run", "pasted `docker run` command line", doc=True,
                    hint="paste the `docker run` command line (or `docker inspect <container>`)")
COMPOSE_FILE = Source("compose_file", "pasted docker compose file", doc=True,
                      hint="paste the whole compose file (or `docker inspect <container>`)")
K8S_SPEC = Source("k8s_spec", "pasted Kubernetes pod / deployment spec", doc=True,
                  hint="paste `kubectl get pod <pod> -o yaml`")
# `kubectl get pods` rows, `kubectl describe pod` outputs and a pod's events that show a container restarted
# (facts/k8s_pods.py): which pods run or fail, not what any of them was given.
K8S_PODS = Source("k8s_pods", "pasted Kubernetes pod listing (`kubectl get pods`), pod description (`kubectl describe "
                  "pod`) or pod events", doc=True,
                  hint="paste `kubectl get pods -A` and the Events of `kubectl describe pod <pod>`")
# A node as `kubectl describe node` or `kubectl get node -o yaml` shows it (facts/k8s_node.py): the GPUs its device
# plugin registered and offers, GPU feature discovery's labels, its kernel and container runtime.
K8S_NODE = Source("k8s_node", "pasted Kubernetes node description (`kubectl describe node`)", doc=True,
                  hint="paste `kubectl describe node <node>` (its Labels, Capacity and Allocatable)")

# --- engine environment reports ---------------------------------------------------------------------
COLLECT_ENV = Source("collect_env", "`python3 -m vllm.collect_env`", argv=("python3", "-m", "vllm.collect_env"),
                     hint="paste `python3 -m vllm.collect_env`")
CHECK_ENV = Source("check_env", "`python3 -m sglang.check_env`", argv=("python3", "-m", "sglang.check_env"),
                   hint="paste `python3 -m sglang.check_env`")

# --- live probes (no paste kind: what only the host itself answers) ------------------------------
SYSTEMD_DETECT_VIRT = Source("systemd_detect_virt", "`systemd-detect-virt --vm`", argv=("systemd-detect-virt", "--vm"),
                             hint="paste `systemd-detect-virt --vm`")
MODINFO_NVIDIA_VERSION = Source("modinfo_nvidia_version", "`modinfo -F version nvidia`",
                                argv=("modinfo", "-F", "version", "nvidia"))
MODINFO_NVIDIA_LICENSE = Source("modinfo_nvidia_license", "`modinfo -F license nvidia`",
                                argv=("modinfo", "-F", "license", "nvidia"))
IRQBALANCE_ACTIVE = Source("irqbalance_active", "`systemctl is-active irqbalance`",
                           argv=("systemctl", "is-active", "irqbalance"))
POWERPROFILESCTL = Source("powerprofilesctl", "`powerprofilesctl get`", argv=("powerprofilesctl", "get"))
PROC_VMSTAT = Source("proc_vmstat", "/proc/vmstat", path="/proc/vmstat", hint="paste `cat /proc/vmstat`")
PROC_INTERRUPTS = Source("proc_interrupts", "/proc/interrupts", path="/proc/interrupts")
PROC_MEMINFO = Source("proc_meminfo", "/proc/meminfo", path="/proc/meminfo", hint="paste `cat /proc/meminfo`")
PROC_SELF_STATUS = Source("proc_self_status", "/proc/self/status", path="/proc/self/status")
PROC_SELF_CGROUP = Source("proc_self_cgroup", "/proc/self/cgroup", path="/proc/self/cgroup")
NVIDIA_PROC_VERSION = Source("nvidia_proc_version", "/proc/driver/nvidia/version", path="/proc/driver/nvidia/version",
                             hint="paste `cat /proc/driver/nvidia/version`")
NVIDIA_PROC_PARAMS = Source("nvidia_proc_params", "/proc/driver/nvidia/params", path="/proc/driver/nvidia/params")
NVIDIA_MODULE_VERSION = Source("nvidia_module_version", "/sys/module/nvidia/version", path="/sys/module/nvidia/version")

# --- persistent configuration (what the next boot applies: KERN-PERSIST-BOOT) ---------------------
# No paste kind reads these yet: a live audit or a snapshot captured on the host shows them.
_ON_HOST = "run on the host, or `stackaudit capture` there"
# Stacked directories, highest precedence first (sysctl.d(5), modules-load.d(5), modprobe.d(5), udev(7),
# tmpfiles.d(5)): a name in an earlier directory hides the same name in a later one.
SYSCTL_CONF = Source("sysctl_conf", "/etc/sysctl.conf", path="/etc/sysctl.conf", hint=_ON_HOST)
SYSCTL_D = tuple(Source(f"sysctl_d{d.replace('/', '_')}", d, path=d, hint=_ON_HOST)
                 for d in ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
                           "/lib/sysctl.d"))
MODPROBE_D = tuple(Source(f"modprobe_d{d.replace('/', '_')}", d, path=d, hint=_ON_HOST)
                   for d in ("/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
                             "/lib/modprobe.d"))
MODULES_LOAD_D = tuple(Source(f"modules_load_d{d.replace('/', '_')}", d, path=d,
                              hint=_ON_HOST)
                       for d in ("/etc/modules-load.d", "/run/modules-load.d", "/usr/local/lib/modules-load.d",
                                 "/usr/lib/modules-load.d", "/lib/modules-load.d"))
# Debian's own list, read by systemd-modules-load through the /etc/modules-load.d/modules.conf link.
ETC_MODULES = Source("etc_modules", "/etc/modules", path="/etc/modules")
TMPFILES_D = tuple(Source(f"tmpfiles_d{d.replace('/', '_')}", d, path=d)
                   for d in ("/etc/tmpfiles.d", "/run/tmpfiles.d", "/usr/local/lib/tmpfiles.d", "/usr/lib/tmpfiles.d",
                             "/lib/tmpfiles.d"))
UDEV_RULES_D = tuple(Source(f"udev_rules{d.replace('/', '_')}", d, path=d)
                     for d in ("/etc/udev/rules.d", "/run/udev/rules.d", "/usr/local/lib/udev/rules.d",
                               "/usr/lib/udev/rules.d", "/lib/udev/rules.d"))
# tuned: the active profile(s), and where profiles live (/etc first; tuned >= 2.23 also has profiles/ below).
TUNED_PROFILE_DIRS = ("/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned")
SYSTEMD_SYSTEM = Source("systemd_system", "/etc/systemd/system", path="/etc/systemd/system",
                        hint=_ON_HOST)
GRUB_DEFAULT = Source("grub_default", "/etc/default/grub", path="/etc/default/grub", hint=_ON_HOST)
GRUB_DEFAULT_D = Source("grub_default_d", "/etc/default/grub.d", path="/etc/default/grub.d")
OS_RELEASE = Source("os_release", "/etc/os-release", path="/etc/os-release", hint="paste `cat /etc/os-release`")
KERNEL_CMDLINE_FILE = Source("kernel_cmdline_file", "/etc/kernel/cmdline", path="/etc/kernel/cmdline",
                             hint=_ON_HOST)
# tuned's [bootloader] plugin: the `$tuned_params` value it last wrote (/etc/grub.d/00_tuned sources it), and
# GRUB's environment block, where tuned also sets tuned_params and RHEL 8 keeps `kernelopts`.
TUNED_BOOTCMDLINE = Source("tuned_bootcmdline", "/etc/tuned/bootcmdline", path="/etc/tuned/bootcmdline",
                           hint=_ON_HOST)
GRUBENV_FILES = ("/boot/grub2/grubenv", "/boot/grub/grubenv")
TUNED_GRUB_TEMPLATE = "/etc/grub.d/00_tuned"  # the tuned package's grub-mkconfig script (sources bootcmdline)
# The journals `fix --apply` writes (fixes/journal.py DEFAULT_DIR): what it changed at runtime.
APPLY_JOURNALS = Source("apply_journals", "/var/lib/stackaudit/journal", path="/var/lib/stackaudit/journal",
                        hint=_ON_HOST + " as root")
LOADER_ENTRIES = tuple(Source(f"loader_entries{d.replace('/', '_')}", d, path=d,
                              hint=_ON_HOST)
                       for d in ("/boot/loader/entries", "/efi/loader/entries", "/boot/efi/loader/entries"))

# --- documents with no place on a host --------------------------------------------------------------
# One pasted log holds the engine's own lines (vLLM, SGLang) and NCCL's INFO/WARN lines, in order.
ENGINE_LOG = Source("engine_log", "pasted engine / NCCL log", doc=True,
                    hint="paste the server's log (with NCCL_DEBUG=INFO for NCCL lines)")

# What the NVIDIA daemons said, pasted: `systemctl status/start/restart` of their units, their journal or syslog
# lines (nv-fabricmanager, nvidia-fabricmanager-start.sh, nvidia-persistenced, systemd about their units) and a
# GPU operator driver container's log, in the order pasted.
NVIDIA_DAEMON_LOG = Source("nvidia_daemon_log", "pasted NVIDIA daemon status / journal", doc=True,
                           hint="paste `systemctl status nvidia-fabricmanager nvidia-persistenced` and "
                           "`journalctl -u nvidia-fabricmanager`")
# DCGM's command-line tool: each output is a pasted document (its flags vary: `-l`, `--link-status`, `-r 2`).
DCGMI_DISCOVERY = Source("dcgmi_discovery", "pasted `dcgmi discovery -l`", doc=True, hint="paste `dcgmi discovery -l`")
DCGMI_NVLINK = Source("dcgmi_nvlink", "pasted `dcgmi nvlink --link-status`", doc=True,
                      hint="paste `dcgmi nvlink --link-status`")
DCGMI_DIAG = Source("dcgmi_diag", "pasted `dcgmi diag`", doc=True, hint="paste `dcgmi diag -r 2`")
# Lines of known evidence that no block recogniser took (an nvidia-smi field, an XML element of `-q -x`).
EVIDENCE_LINES = Source("evidence_lines", "pasted lines of evidence", doc=True, hint="paste the whole output")

# Greps of a whole source shown with nothing under them (`lsmod | grep nvidia_peermem`), one command a line.
EMPTY_GREPS = Source("empty_greps", "pasted greps with no output", doc=True,
                     hint="paste `lsmod | grep <module>` or `dmesg | grep -i xid` with what it printed")
# Greps of a whole listing shown with their output above it (`sudo lspci -vvv | grep ACSCtl`), one command a line:
# the output under such a command holds every line of the listing that matches.
LISTING_GREPS = Source("listing_greps", "pasted greps of a whole listing, with output", doc=True,
                       hint="paste `sudo lspci -vvv | grep ACSCtl` with all it printed")
# A shell test of a path shown with the word it printed (`test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo
# "GDR is enabled" || echo "GDR is not enabled"`, then `GDR is enabled`): the command and its output line.
PATH_TESTS = Source("path_tests", "pasted shell tests of a path, with what they printed", doc=True,
                    hint="paste `ls /sys/kernel/mm/memory_peers` with what it printed")

# nccl-tests (all_reduce_perf ...) output: its header names each rank's GPU.
# Ray's own log lines (`(raylet) ...`, `WARNING services.py:...`): the object store's /dev/shm warning.
RAY_LOG = Source("ray_log", "pasted Ray log", doc=True, hint="paste the `ray start` / `ray.init()` output")
RAY_STATUS = Source("ray_status", "`ray status`", argv=("ray", "status"), hint="paste `ray status` from the head node")

NCCL_TESTS = Source("nccl_tests", "pasted nccl-tests output", doc=True, hint="paste the all_reduce_perf output")

# The CUDA samples' p2pBandwidthLatencyTest output: peer access per pair and the bandwidth matrices. NVIDIA's
# nvbandwidth output: its CUDA and driver versions, devices, and each test's matrix, waiver or failure.
P2P_BANDWIDTH_TEST = Source("p2p_bandwidth_test", "pasted p2pBandwidthLatencyTest or nvbandwidth output", doc=True,
                            hint="paste the whole output of CUDA samples' `p2pBandwidthLatencyTest` or of `nvbandwidth`")

# llama.cpp's CUDA start-up lines (`ggml_cuda_init: found 2 CUDA devices:` and a `Device N: <name>, compute
# capability X.Y` line per device), from any log that prints them (llama-server, ik_llama.cpp, ollama's runner).
GGML_CUDA_DEVICES = Source("ggml_cuda_devices", "pasted llama.cpp `ggml_cuda_init` device list", doc=True,
                           hint="paste the engine's start-up log from `ggml_cuda_init: found N CUDA devices` on")

# A serving framework's own statement of the GPUs it puts each copy of a model on: Xinference's `xinference launch
# --gpu-idx 0,1 --replica 2` and its worker's `launch the model: M on GPU index: [2]`, a Triton model config's
# `instance_group [ { kind: KIND_GPU gpus: [ 6 ] } ]` (facts/model_placement.py).
MODEL_PLACEMENT = Source("model_placement", "a serving framework's GPU assignment of a model (Xinference, Triton)",
                         doc=True, hint="paste the command or config that places the model on its GPUs")

# JAX's device list as a program prints it (`print(jax.devices())`: `[GpuDevice(id=0, process_index=0), ...]`, newer
# releases `[CudaDevice(id=0), CudaDevice(id=1)]`): the GPUs JAX sees where it ran.
JAX_DEVICES = Source("jax_devices", "pasted JAX device list", doc=True,
                     hint="paste `python -c 'import jax; print(jax.local_devices())'`")

# TensorFlow's GPU device log (common_runtime/gpu/gpu_device.cc): `Found device N with properties:` and its property
# lines, `Adding visible gpu devices: 0, 1`, the `Device interconnect StreamExecutor with strength 1 edge matrix:` block
# and each `Created TensorFlow device (...) -> physical GPU (device: N, name: ..., pci bus id: ..., compute capability:
# X.Y)`: the GPUs TensorFlow sees where it ran, and the driver's peer-access answer for each pair of them.
TF_DEVICES = Source("tf_devices", "pasted TensorFlow GPU device log", doc=True,
                    hint="paste TensorFlow's start-up lines from `Found device 0 with properties:` to `Created "
                    "TensorFlow device`")

# A command line that starts an engine (`vllm serve ...`, `python -m sglang.launch_server ...`), as pasted.
ENGINE_COMMAND = Source("engine_command", "pasted engine command line", doc=True,
                        hint="paste the command that starts the engine")

# A process tree as `ps --forest` (`ps a --forest -o pid,comm`, `ps axjf`) prints it, pasted: each row a PID and its
# command, a child indented under its parent with `\_ ` (facts/container.py reads where the workload runs).
PROCESS_TREE = Source("process_tree", "pasted process tree (`ps --forest`)", doc=True,
                      hint="paste `ps axf -o pid,comm` from the node")

# ollama's own client output, pasted: `ollama ps` (its table NAME ID SIZE PROCESSOR UNTIL: each loaded model and where
# it sits, `100% GPU`, `48%/52% CPU/GPU`) and `ollama -v` (`ollama version is 0.5.7`), in the order pasted.
OLLAMA_CLI = Source("ollama_cli", "pasted `ollama ps` / `ollama -v` output", doc=True,
                    hint="paste `ollama ps` and `ollama -v`")

# Benchmark output pasted as it printed (`vllm bench serve` / benchmark_serving.py, SGLang bench_serving and
# bench_one_batch, a llama-bench table, genai-perf's table, vLLM's offline progress bar): the measured decode
# rate of issue 29 (facts/serving_rate.py).
BENCH_OUTPUT = Source("bench_output", "pasted benchmark output", doc=True,
                      hint="paste the output of `vllm bench serve --max-concurrency 1` or `llama-bench`")

# A rate in the user's own words (`around 10 t/s`), recorded only from a paste that also holds an engine command
# or engine log (importers/prose_rate.py): the last source of the measured rate.
MIG_SETUP = Source("mig_setup", "a line that sets up MIG slicing (a device plugin's MIG strategy, a MIG resource)",
                   doc=True, hint="paste the device plugin's or GPU Operator's MIG settings")
TIME_SLICING = Source("time_slicing", "a device plugin's time-slicing config (its `timeSlicing` resources with their "
                      "`replicas`)", doc=True, hint="paste the device plugin's config (its sharing.timeSlicing section)")
USER_RATE = Source("user_rate", "a rate in the user's own words", doc=True,
                   hint="say the rate beside the engine's command line, or paste its log")
# A hang in the user's own words (`it gets stuck when loading the model`), recorded only from a paste that also
# holds an engine command or log (importers/prose_trouble.py): the last source of the `trouble` fact.
USER_TROUBLE = Source("user_trouble", "a hang in the user's own words", doc=True,
                      hint="say where the engine stops, beside its command line or log")
# The user's question naming a setting a check judges (`how could I know which NCCL_P2P_LEVEL it uses?`), recorded
# from a sentence of the paste (importers/prose_question.py): the only source of the `question` fact.
USER_QUESTION = Source("user_question", "a question in the user's own words", doc=True,
                       hint="ask the question beside the output it is about")

# The user's report that turning GPU peer-to-peer off cures a failure (`Setting NCCL_P2P_DISABLE=1 did workaround`, `It
# works with disabled P2P, but crashes when enabled`), recorded from a sentence of the paste (importers/prose_ab_p2p.py):
# the only source of the `p2p_off_cures` fact (facts/peer_access.py).
USER_P2P_OFF_CURES = Source("user_p2p_off_cures", "the user's words that turning GPU P2P off cures a failure", doc=True,
                            hint="paste the run's output with P2P on and with NCCL_P2P_DISABLE=1")

# NCCL variables the user says were set, as pasted (importers/prose_nccl_env.py): a line that is only
# `NCCL_X=value` (a list of the run's variables) or `export NCCL_X=value` in a sentence; read by facts/serving_logs.py.
USER_NCCL_ENV = Source("user_nccl_env", "NCCL variables set in the user's own words", doc=True,
                       hint="paste the command line that ran with them, or NCCL's `set by environment` log lines")

# The serving engines the user's own words name, as pasted (importers/prose_engine.py): a sentence that names ollama,
# llama.cpp, vLLM or PyTorch; read by facts/engine_command.py, the weakest source of the engines a paste shows.
USER_ENGINES = Source("user_engines", "the serving engine in the user's own words", doc=True,
                      hint="paste the engine's command line or its start-up log")

# The machine in the user's own words, as pasted (importers/prose_machine.py): a GPU count and model (`8 x A10G
# GPUs`, `a 8 cards 4090 server`), the last source of the GPU inventory, or a cloud instance type (`g5.48xlarge`),
# the last source of virtualization.
USER_MACHINE = Source("user_machine", "the machine in the user's own words", doc=True,
                      hint="paste `nvidia-smi -L` and `systemd-detect-virt`")

# club-3090's rig report (`scripts/report.sh`, importers/rig_report.py): its System section's `Environment:` line,
# the script's reading of the machine (systemd-detect-virt's answer, WSL 2 or bare metal).
RIG_REPORT_ENVIRONMENT = Source("rig_report_environment", "club-3090 rig report's Environment line", doc=True,
                                hint="paste `systemd-detect-virt --vm`")

# club-3090's power-cap sweep (`scripts/power-cap-sweep.sh`, importers/rig_report.py): each cap step's banner and the
# limit its script set, one line a step (`cap=330 gpus=0,1 set=330.00`).
POWER_CAP_SWEEP = Source("power_cap_sweep", "club-3090 power-cap sweep's cap steps", doc=True,
                         hint="paste `nvidia-smi -q -d POWER`")

ALL: tuple[Source, ...] = (*(v for v in globals().values() if isinstance(v, Source)), *DF_PASTED, *LSPCI_PASTED,
                           *NVSMI_P2P.values(), *SYSCTL_D, *MODPROBE_D,
                           *MODULES_LOAD_D, *TMPFILES_D, *UDEV_RULES_D, *LOADER_ENTRIES)
