"""What the NVIDIA container plumbing exposed here: /dev/nvidia* nodes, the NVIDIA_* variables,
and the kernel module's version against the user-space library's (RDMA devices: the `rdma` fact).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.nvidia import parse_proc_version
from stackaudit.facts.processes import ServingProcesses, parse_environ
from stackaudit.facts.registry import FactContext, provider
from stackaudit.host.base import Host, NotCaptured, list_or_none, read_or_none

# Where distributions put libnvidia-ml.so.1 (a link to libnvidia-ml.so.<driver version>).
NVML_LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib",
    "/usr/local/nvidia/lib64",
    "/usr/lib/wsl/lib",
)
ENV_NAMES = ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CUDA_VISIBLE_DEVICES")


@dataclass(frozen=True)
class GpuDeviceAccess:
    # /dev entries starting with "nvidia" (nvidia0, nvidiactl, nvidia-uvm, nvidia-caps, ...); None: not read
    nodes: tuple[str, ...] | None
    caps_nodes: tuple[str, ...] = ()  # /dev/nvidia-caps/*
    env: dict[str, str] | None = None  # the NVIDIA_* / CUDA_VISIBLE_DEVICES values seen; None: not read
    env_source: str = ""  # "engine pid N" or "audit process"
    kernel_version: str | None = None  # /proc/driver/nvidia/version
    kernel_version_line: str = ""
    userspace_version: str | None = None  # the version libnvidia-ml.so.1 resolves to
    userspace_lib: str = ""
    proc_gpus: tuple[str, ...] | None = None  # /proc/driver/nvidia/gpus/<bdf>

    @property
    def gpu_nodes(self) -> tuple[str, ...]:
        return tuple(sorted((n for n in self.nodes or () if re.fullmatch(r"nvidia\d+", n)),
                            key=lambda n: int(n[6:])))

    def has(self, node: str) -> bool:
        return node in (self.nodes or ())

    @property
    def version_mismatch(self) -> bool:
        return bool(self.kernel_version and self.userspace_version
                    and self.kernel_version != self.userspace_version)


def _userspace_version(host: Host) -> tuple[str | None, str]:
    for directory in NVML_LIB_DIRS:
        path = f"{directory}/libnvidia-ml.so.1"
        try:
            target = host.readlink(path)
        except (OSError, NotCaptured):
            continue
        m = re.search(r"libnvidia-ml\.so\.(\d+\.\d+(?:\.\d+)?)$", target)
        if m:
            return m.group(1), f"{path} -> {target}"
    return None, ""


@provider("gpu_devices", GpuDeviceAccess, title="/dev/nvidia*, NVIDIA_* variables")
def gpu_devices(ctx: FactContext) -> GpuDeviceAccess:
    """NVIDIA device nodes, NVIDIA_* variables, kernel module vs libnvidia-ml version."""
    host = ctx.host
    captured = False
    nodes: tuple[str, ...] | None
    try:
        nodes = tuple(n for n in host.list_dir("/dev") if n.startswith("nvidia"))
        captured = True
    except NotCaptured:
        nodes = None
    except OSError:
        nodes = None
    caps: tuple[str, ...] = ()
    if nodes and "nvidia-caps" in nodes:
        caps = tuple(list_or_none(host, "/dev/nvidia-caps") or ())
    env: dict[str, str] | None = None
    env_source = ""
    procs = ctx.optional("serving_processes", ServingProcesses)
    if procs is not None:
        for proc in procs.processes:
            if proc.environ is not None:
                env = {k: v for k, v in proc.environ.items() if k in ENV_NAMES}
                env_source = f"engine pid {proc.pid}"
                break
    if env is None:
        text = read_or_none(host, "/proc/self/environ")
        if text is not None:
            env = {k: v for k, v in parse_environ(text).items() if k in ENV_NAMES}
            env_source = "audit process"
            captured = True
    version_text = read_or_none(host, "/proc/driver/nvidia/version")
    try:
        kernel_version = parse_proc_version(version_text)[0] if version_text else None
    except ParseError:
        kernel_version = None
    line = next((ln for ln in (version_text or "").splitlines() if ln.startswith("NVRM")), "")
    user_version, user_lib = _userspace_version(host)
    listed = list_or_none(host, "/proc/driver/nvidia/gpus")
    proc_gpus = None if listed is None else tuple(listed)
    if not captured and kernel_version is None and user_version is None and proc_gpus is None:
        raise NotCaptured("/dev/nvidia*, /proc/driver/nvidia")
    return GpuDeviceAccess(nodes, caps, env, env_source, kernel_version, line.strip(), user_version, user_lib,
                           proc_gpus)

