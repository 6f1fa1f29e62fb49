"""Whole-container scenarios: a Docker container with default limits, a Kubernetes pod, a Proxmox
LXC host. Expected statuses are written by hand, each citing the knowledge-base entry behind it.
"""

from __future__ import annotations

import json

from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import fake_host
from test_ctr_checks import NVIDIA_ENV, container_host, df_shm, limits_with, vllm_process
from test_ctr_facts import PROC_DEVICES, PROC_LIMITS


def _check(results: dict, expected: dict[str, tuple[str, str]]) -> None:  # type: ignore[type-arg]
    got = {k: results[k].status for k in expected}
    want = {k: v[0] for k, v in expected.items()}
    assert got == want, {k: (got[k], results[k].message) for k in expected if got[k] != want[k]}


# 1. `docker run --gpus all vllm/vllm-openai --tensor-parallel-size 4`: no --shm-size, no --ipc=host,
#    no --cap-add SYS_NICE, no --ulimit: /dev/shm 64 MiB, default seccomp, memlock 64 KiB, 4 GPUs.
DOCKER_DEFAULT = {
    "CTR-SHM-SIZE": ("issue", "KB CTR-SHM-SIZE: 64 MiB Docker default with TP>1 / multi-process vLLM V1"),
    "CTR-IPC-ISOLATION": ("ok", "KB CTR-IPC-ISOLATION: all TP ranks in one container is the normal mode"),
    "CTR-MEMLOCK": ("not-an-issue", "KB CTR-MEMLOCK negative result: CUDA pinned memory ignores RLIMIT_MEMLOCK; "
                                    "no RDMA NIC"),
    "CTR-STACK-ULIMIT": ("ok", "KB CTR-STACK-ULIMIT: info only, no evidence"),
    "CTR-SECCOMP-NUMA": ("issue", "KB CTR-SECCOMP-NUMA: default seccomp, no SYS_NICE, multi-GPU NCCL"),
    "CTR-GPU-ACCESS": ("ok", "KB CTR-GPU-ACCESS: nvidia0-3, nvidiactl, nvidia-uvm, compute,utility, versions match"),
    "CTR-LXC-DEVICES": ("not-applicable", "KB CTR-LXC-DEVICES applies to LXC only"),
    "CTR-LXC-HOST-SCOPE": ("not-applicable", "KB CTR-LXC-HOST-SCOPE applies to LXC only"),
    "CTR-CPU-LIMITS": ("ok", "KB CTR-CPU-LIMITS: no quota, 64 CPUs >= TP+4, not throttled"),
    "CTR-K8S-GPU-TOPOLOGY": ("not-applicable", "KB CTR-K8S-GPU-TOPOLOGY applies to Kubernetes pods"),
}


def test_docker_container_with_default_limits() -> None:
    host = container_host("docker", files=vllm_process(tp=4))
    results = run_checks(host, select=["CTR"])
    _check(results, DOCKER_DEFAULT)
    shm = results["CTR-SHM-SIZE"]
    assert shm.priority == "P0" and shm.scope == "container" and "TP x PP = 4" in shm.message
    assert results["CTR-SECCOMP-NUMA"].priority == "P2"  # KB: Low-Med, throughput impact not measured


# 2. A Kubernetes pod with 2 of the node's 8 GPUs, one on each socket; 4-CPU limit, throttled;
#    no /dev/shm emptyDir; memlock 64 KiB on a node with ConnectX HCAs; runtime seccomp Unconfined.
K8S_POD = {
    "CTR-SHM-SIZE": ("issue", "KB CTR-SHM-SIZE: pod without emptyDir {medium: Memory} at /dev/shm"),
    "CTR-IPC-ISOLATION": ("not-applicable", "KB CTR-IPC-ISOLATION: no engine running in the pod to be split"),
    "CTR-MEMLOCK": ("issue", "KB CTR-MEMLOCK: 64 KiB with RDMA devices present"),
    "CTR-STACK-ULIMIT": ("ok", "KB CTR-STACK-ULIMIT: info only"),
    "CTR-SECCOMP-NUMA": ("ok", "KB CTR-SECCOMP-NUMA: no seccomp filter (Seccomp: 0), NUMA syscalls allowed"),
    "CTR-GPU-ACCESS": ("ok", "KB CTR-GPU-ACCESS: device plugin injected nvidia0/1, nvidiactl, nvidia-uvm"),
    "CTR-LXC-DEVICES": ("not-applicable", "KB CTR-LXC-DEVICES: not LXC"),
    "CTR-LXC-HOST-SCOPE": ("not-applicable", "KB CTR-LXC-HOST-SCOPE: not LXC"),
    "CTR-CPU-LIMITS": ("issue", "KB CTR-CPU-LIMITS: 4 CPUs < TP+4 = 6 and throttled"),
    "CTR-K8S-GPU-TOPOLOGY": ("issue", "KB CTR-K8S-GPU-TOPOLOGY: pod GPUs cross sockets while 4 share a node"),
}


def _pci(gpus_per_node: int = 4) -> dict[str, str]:
    files = {}
    for i, bus in enumerate(["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]):
        base = f"/sys/bus/pci/devices/0000:{bus}:00.0"
        files.update({f"{base}/vendor": "0x10de\n", f"{base}/class": "0x030200\n", f"{base}/device": "0x26b9\n",
                      f"{base}/numa_node": f"{i // gpus_per_node}\n"})
    return files


def test_kubernetes_pod() -> None:
    env = "PATH=/usr/bin\0KUBERNETES_SERVICE_HOST=10.96.0.1\0NVIDIA_VISIBLE_DEVICES=GPU-5c1e,GPU-9a07\0"
    host = container_host(
        "kubernetes", gpus=2, env=env, status="Name:\tpython3\nCapEff:\t00000000a80425fb\nSeccomp:\t0\n",
        cpu_max="400000 100000", cpu_stat="nr_periods 52311\nnr_throttled 9120\nthrottled_usec 812345678\n",
        rdma=("mlx5_0", "mlx5_1"), files=_pci(), dirs={"/proc/driver/nvidia/gpus": ["0000:18:00.0", "0000:9a:00.0"]})
    results = run_checks(host, select=["CTR"])
    _check(results, K8S_POD)
    assert "emptyDir" in results["CTR-SHM-SIZE"].fix.persistent
    memlock = results["CTR-MEMLOCK"]
    assert memlock.scope == "host" and "crio.conf" in memlock.fix.persistent  # KB: not settable per pod
    assert results["CTR-CPU-LIMITS"].priority == "P1"


# 3. A Proxmox VE node, audited on the node: CT 101 passes a GPU but its config was copied from another
#    host (uvm rule names major 509; this host's nvidia-uvm is 508), nofile prlimit 1024, 2 cores;
#    CT 102 has no GPU.
PVE_101 = """arch: amd64
cores: 2
features: nesting=1
hostname: llm
memory: 32768
ostype: debian
rootfs: local-lvm:vm-101-disk-0,size=128G
swap: 0
unprivileged: 1
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 509:* rwm
lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file
lxc.prlimit.nofile: 1024
"""
PVE_102 = "arch: amd64\ncores: 4\nhostname: dns\nmemory: 1024\nostype: alpine\nrootfs: local-lvm:vm-102-disk-0,size=4G\n"
PROXMOX_NODE = {
    "CTR-SHM-SIZE": ("ok", "KB CTR-SHM-SIZE: the node's /dev/shm is half of RAM; no Docker containers"),
    "CTR-IPC-ISOLATION": ("not-applicable", "KB CTR-IPC-ISOLATION: no containers started as ranks"),
    "CTR-MEMLOCK": ("not-an-issue", "KB CTR-MEMLOCK negative result: 8 MiB, no RDMA"),
    "CTR-STACK-ULIMIT": ("not-applicable", "KB CTR-STACK-ULIMIT applies to (NGC) containers"),
    "CTR-SECCOMP-NUMA": ("not-applicable", "KB CTR-SECCOMP-NUMA: Docker/containerd only"),
    "CTR-GPU-ACCESS": ("not-applicable", "KB CTR-GPU-ACCESS: read inside the container (LXC side: CTR-LXC-DEVICES)"),
    "CTR-LXC-DEVICES": ("issue", "KB CTR-LXC-DEVICES: uvm major hard-coded from another host"),
    "CTR-LXC-HOST-SCOPE": ("issue", "KB CTR-LXC-HOST-SCOPE: nofile hard limit < 65536"),
    "CTR-CPU-LIMITS": ("issue", "KB CTR-CPU-LIMITS: 2 cores for a GPU container (< TP+4)"),
    "CTR-K8S-GPU-TOPOLOGY": ("not-applicable", "KB CTR-K8S-GPU-TOPOLOGY: not a pod"),
}


def test_proxmox_lxc_node() -> None:
    host = fake_host(
        files={"/proc/1/cgroup": "0::/init.scope\n", "/proc/self/cgroup": "0::/user.slice/user-0.slice/session-3.scope\n",
               "/proc/self/limits": limits_with(memlock="8388608"), "/proc/devices": PROC_DEVICES,
               "/etc/pve/lxc/101.conf": PVE_101, "/etc/pve/lxc/102.conf": PVE_102},
        dirs={"/etc/pve/lxc": ["101.conf", "102.conf"], "/dev": ["nvidia0", "nvidiactl", "nvidia-uvm"]},
        commands={"df -k -P /dev/shm": df_shm(131_912_384)})
    results = run_checks(host, select=["CTR"])
    _check(results, PROXMOX_NODE)
    dev = results["CTR-LXC-DEVICES"]
    assert dev.subjects == ("101",) and "509" in dev.message and "508" in dev.message
    assert results["CTR-CPU-LIMITS"].subjects == ("101",)
    assert all(r.scope == "host" for r in results.values())  # audited on the node: fixable from here
    assert json.dumps([r.to_json() for r in results.values()])
    assert NVIDIA_ENV and PROC_LIMITS
