"""CTR checks through the real engine on fake hosts: each an issue, a pass and its trap."""

from __future__ import annotations

import json
from typing import Any

from corpus import capture_result, paste_checks
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import MemoryHost, fake_host
from test_ctr_facts import (
    CID,
    DF_SHM_64M,
    DOCKER_MOUNTINFO,
    NVRM,
    PROC_DEVICES,
    PROC_LIMITS,
    PVE_CONF,
    docker_object,
)

MOUNTS_V2 = ("overlay / overlay rw,relatime 0 0\ncgroup2 /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec 0 0\n"
             "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n")
DOCKER_STATUS = "Name:\tpython3\nUid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\nNoNewPrivs:\t0\nSeccomp:\t2\n"
NVIDIA_ENV = "PATH=/usr/bin\0NVIDIA_VISIBLE_DEVICES=all\0NVIDIA_DRIVER_CAPABILITIES=compute,utility\0"
LIB = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"


def df_shm(kib: int, used: int = 0) -> str:
    return ("Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
            f"shm {kib} {used} {kib - used} {used * 100 // kib}% /dev/shm\n")


def limits_with(memlock: str = "65536", stack: str = "8388608", nofile: str = "1048576") -> str:
    return (PROC_LIMITS.replace("Max locked memory         65536                65536",
                                f"Max locked memory         {memlock:<21}{memlock}")
            .replace("Max stack size            8388608", f"Max stack size            {stack:<9}")
            .replace("Max open files            1048576              1048576",
                     f"Max open files            {nofile:<21}{nofile}"))


def container_host(kind: str = "docker", shm_kib: int = 65536, shm_used: int = 0, gpus: int = 4,
                   status: str = DOCKER_STATUS, limits: str = PROC_LIMITS, env: str = NVIDIA_ENV,
                   cpu_max: str = "max 100000", cpu_stat: str = "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n",
                   cpuset: str = "0-63", dev_extra: tuple[str, ...] = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"),
                   user_version: str = "570.86.15", rdma: tuple[str, ...] = (),
                   files: dict[str, str] | None = None, dirs: dict[str, list[str]] | None = None) -> MemoryHost:
    base: dict[str, str] = {
        "/proc/1/cgroup": "0::/\n", "/proc/self/cgroup": "0::/\n", "/proc/self/mounts": MOUNTS_V2,
        "/proc/self/mountinfo": DOCKER_MOUNTINFO if kind == "docker" else DOCKER_MOUNTINFO.replace(
            "/var/lib/docker/containers/3f1c2d", "/var/lib/kubelet/pods/7d1e/etc-hosts" if kind == "kubernetes"
            else "/srv"),
        "/proc/self/status": status, "/proc/self/limits": limits, "/proc/self/environ": env,
        "/sys/fs/cgroup/cpu.max": cpu_max + "\n", "/sys/fs/cgroup/cpu.stat": cpu_stat,
        "/sys/fs/cgroup/cpuset.cpus.effective": cpuset + "\n", "/sys/fs/cgroup/memory.max": "max\n",
        "/proc/driver/nvidia/version": NVRM,
    }
    all_dirs: dict[str, list[str]] = {"/dev": ["null", "shm", *(f"nvidia{i}" for i in range(gpus)), *dev_extra]}
    if kind == "docker":
        base["/.dockerenv"] = ""
    elif kind == "kubernetes":
        all_dirs["/var/run/secrets/kubernetes.io/serviceaccount"] = ["ca.crt", "namespace", "token"]
    elif kind == "lxc":
        base["/run/systemd/container"] = "lxc\n"
    if rdma:
        all_dirs["/sys/class/infiniband"] = list(rdma)
    base.update(files or {})
    all_dirs.update(dirs or {})
    return fake_host(files=base, dirs=all_dirs, commands={"df -k -P /dev/shm": df_shm(shm_kib, shm_used)},
                     links={LIB: f"libnvidia-ml.so.{user_version}"})


def vllm_process(pid: int = 4242, tp: int = 4) -> dict[str, str]:
    argv = ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", str(tp)]
    return {f"/proc/{pid}/cmdline": "\0".join(argv) + "\0", f"/proc/{pid}/environ": NVIDIA_ENV,
            f"/proc/{pid}/stat": f"{pid} (vllm) S 1 {pid} {pid} 0 -1 4194560",
            f"/proc/{pid}/limits": PROC_LIMITS, f"/proc/{pid}/status": DOCKER_STATUS}


def one(host: MemoryHost, check_id: str) -> Any:
    return run_checks(host, select=[check_id])[check_id]


def docker_host(*objects: dict[str, Any], files: dict[str, str] | None = None,
                dirs: dict[str, list[str]] | None = None) -> MemoryHost:
    ids = [o["Id"][:12] for o in objects]
    return fake_host(files={"/proc/self/cgroup": "0::/user.slice/user-1000.slice/session-4.scope\n",
                            "/proc/self/limits": PROC_LIMITS, **(files or {})},
                     dirs=dirs, which={"docker": "/usr/bin/docker"},
                     commands={("docker", "ps", "-q"): "\n".join(ids) + "\n",
                               ("docker", "inspect", *ids): json.dumps(list(objects)),
                               "df -k -P /dev/shm": df_shm(131_000_000)})


# --- CTR-SHM-SIZE ----------------------------------------------------------------------------

def test_shm_64m_in_docker_is_p0_with_docker_fix() -> None:
    r = one(container_host(), "CTR-SHM-SIZE")
    assert r.status == "issue" and r.priority == "P0" and r.scope == "container"
    assert "--shm-size" in r.fix.persistent and "--ipc=host" in r.fix.persistent
    assert r.actual == "64 MiB"


def test_shm_in_kubernetes_names_emptydir() -> None:
    r = one(container_host("kubernetes"), "CTR-SHM-SIZE")
    assert r.status == "issue" and "emptyDir" in r.fix.persistent and "pod" in r.message


def test_shm_large_is_ok_and_full_is_issue() -> None:
    assert one(container_host(shm_kib=16 * 2**20), "CTR-SHM-SIZE").status == "ok"
    r = one(container_host(shm_kib=16 * 2**20, shm_used=16 * 2**20 - 1000), "CTR-SHM-SIZE")
    assert r.status == "issue" and "full" in r.message


def _engine_files(argv: list[str]) -> dict[str, str]:
    return {"/proc/77/cmdline": "\0".join(argv) + "\0", "/proc/77/stat": "77 (python3) S 1 77 77 0 -1 0",
            "/proc/77/status": DOCKER_STATUS, "/proc/77/limits": PROC_LIMITS, "/proc/77/environ": NVIDIA_ENV}


def test_shm_small_with_vllm_at_one_rank_agrees_with_the_spec_path() -> None:
    """A running vLLM whose whole command runs one rank is judged as its `docker inspect` spec is: its API server
    reaches one engine core over ZMQ sockets, and the shared-memory broadcast queue and NCCL come with TP or PP > 1.
    The same command at TP 2, or SGLang at TP 1 (tokenizer, scheduler, detokenizer processes), stays an issue."""
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B"]
    r = one(container_host(files=_engine_files(argv)), "CTR-SHM-SIZE")
    assert r.status == "not-an-issue" and "one rank" in r.message, r.message
    r = one(container_host(files=_engine_files([*argv, "--tensor-parallel-size", "2"])), "CTR-SHM-SIZE")
    assert r.status == "issue", r.message
    r = one(container_host(files=_engine_files([*argv, "--tensor-parallel-size", "$TP"])), "CTR-SHM-SIZE")
    assert r.status == "issue", r.message
    sglang = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
    assert one(container_host(files=_engine_files(sglang)), "CTR-SHM-SIZE").status == "issue"


def test_shm_on_docker_host_flags_the_gpu_container_only() -> None:
    db = docker_object(name="postgres", cid="a" * 64, gpus=0, args=["postgres"], env=["PGDATA=/var/lib/pg"])
    db["Config"]["Image"] = "postgres:16"
    db["Path"] = "docker-entrypoint.sh"
    r = one(docker_host(docker_object(), db), "CTR-SHM-SIZE")
    assert r.status == "issue" and r.subjects == ("vllm",)
    # Host IPC: the container gets the host's /dev/shm, judged from the host's own df (shown here).
    shared = one(docker_host(docker_object(ipc="host")), "CTR-SHM-SIZE")
    assert shared.status == "ok" and "host IPC" in shared.message


def test_shm_bare_metal_remove_ipc_with_user_engine() -> None:
    files = {**vllm_process(tp=2), "/etc/systemd/logind.conf": "[Login]\n#RemoveIPC=yes\n"}
    files["/proc/4242/status"] = DOCKER_STATUS.replace("Uid:\t0\t0\t0\t0", "Uid:\t1000\t1000\t1000\t1000")
    host = fake_host(files={"/proc/self/cgroup": "0::/user.slice\n", **files},
                     commands={"df -k -P /dev/shm": df_shm(131_000_000)})
    r = one(host, "CTR-SHM-SIZE")
    assert r.status == "issue" and "RemoveIPC" in r.message and r.scope == "host"


# --- CTR-IPC-ISOLATION -----------------------------------------------------------------------

def _rank(name: str, cid: str, rank: int, ipc: str = "private", hostid: str | None = None) -> dict[str, Any]:
    env = ["NVIDIA_VISIBLE_DEVICES=" + str(rank)] + ([f"NCCL_HOSTID={hostid}"] if hostid else [])
    obj = docker_object(name=name, cid=cid, ipc=ipc, gpus=1, env=env,
                        args=["-m", "sglang.launch_server", "--model-path", "m", "--tp", "2", "--nnodes", "2",
                              "--node-rank", str(rank), "--dist-init-addr", "10.0.0.7:5000"])
    obj["Path"] = "python3"
    obj["HostConfig"]["NetworkMode"] = "bridge"
    return obj


def test_ipc_isolation_two_rank_containers_on_one_host() -> None:
    r = one(docker_host(_rank("rank0", "b" * 64, 0), _rank("rank1", "c" * 64, 1)), "CTR-IPC-ISOLATION")
    assert r.status == "issue" and r.priority == "P0" and set(r.subjects) == {"rank0", "rank1"}


def test_ipc_isolation_shared_ipc_and_hostid_is_ok() -> None:
    r = one(docker_host(_rank("rank0", "b" * 64, 0, ipc="shareable", hostid="n7"),
                        _rank("rank1", "c" * 64, 1, ipc="container:rank0", hostid="n7")), "CTR-IPC-ISOLATION")
    assert r.status == "ok", r.message


def test_ipc_isolation_single_container_engine_is_ok_and_rank_is_unknown() -> None:
    assert one(container_host(files=vllm_process()), "CTR-IPC-ISOLATION").status == "ok"
    files = vllm_process()
    files["/proc/4242/cmdline"] = "\0".join(["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp",
                                             "4", "--nnodes", "2", "--node-rank", "1"]) + "\0"
    r = one(container_host(files=files), "CTR-IPC-ISOLATION")
    assert r.status == "unknown" and "boot_id" in r.hint


# --- CTR-MEMLOCK -----------------------------------------------------------------------------

def test_memlock_64k_without_rdma_is_not_an_issue_citing_pin_user_pages() -> None:
    r = one(container_host(), "CTR-MEMLOCK")
    assert r.status == "not-an-issue" and "pin_user_pages" in r.message and "os-mlock.c" in r.message


def test_memlock_64k_with_rdma_is_an_issue() -> None:
    r = one(container_host(rdma=("mlx5_0", "mlx5_1")), "CTR-MEMLOCK")
    assert r.status == "issue" and r.severity == "medium" and "memlock=-1" in r.fix.persistent
    assert r.scope == "container"


def test_memlock_rdma_in_kubernetes_fix_is_on_the_node() -> None:
    r = one(container_host("kubernetes", rdma=("mlx5_0",)), "CTR-MEMLOCK")
    assert r.status == "issue" and r.scope == "host" and "containerd" in r.fix.persistent


def test_memlock_unlimited_is_ok_and_docker_ulimit_read() -> None:
    assert one(container_host(limits=limits_with(memlock="unlimited"), rdma=("mlx5_0",)),
               "CTR-MEMLOCK").status == "ok"
    r = one(docker_host(docker_object(ulimits=[{"Name": "memlock", "Soft": 4096, "Hard": 4096}]),
                        dirs={"/sys/class/infiniband": ["mlx5_0"]}), "CTR-MEMLOCK")
    assert r.status == "issue" and "vllm" in r.subjects and "4 KiB" in r.message


def test_memlock_reads_the_engine_not_the_audit_and_never_substitutes_its_own() -> None:
    """The engine's unlimited memlock wins over the audit's 64 KiB; an unreadable engine is unknown."""
    engine = {**vllm_process(), "/proc/4242/limits": limits_with(memlock="unlimited")}
    r = one(container_host(rdma=("mlx5_0",), files=engine), "CTR-MEMLOCK")
    assert r.status == "ok" and "engine pid 4242" in r.message
    del engine["/proc/4242/limits"]
    r = one(container_host(rdma=("mlx5_0",), files=engine), "CTR-MEMLOCK")
    assert r.status == "unknown" and "audit's own" not in r.message


# --- CTR-STACK-ULIMIT ------------------------------------------------------------------------

def test_stack_is_info_only() -> None:
    r = one(container_host(), "CTR-STACK-ULIMIT")
    assert r.status == "ok" and r.actual == "8 MiB" and r.evidence == () and "unproven" in r.message
    assert one(container_host(limits=limits_with(stack="67108864")), "CTR-STACK-ULIMIT").actual == "64 MiB"
    bare = fake_host(files={"/proc/self/cgroup": "0::/user.slice\n", "/proc/self/limits": PROC_LIMITS})
    assert one(bare, "CTR-STACK-ULIMIT").status == "not-applicable"


# --- CTR-SECCOMP-NUMA ------------------------------------------------------------------------

def test_seccomp_without_sys_nice_multi_gpu_is_low_issue() -> None:
    r = one(container_host(), "CTR-SECCOMP-NUMA")
    assert r.status == "issue" and r.severity == "low" and r.priority == "P2"


def test_seccomp_with_sys_nice_or_unconfined_is_ok() -> None:
    nice = DOCKER_STATUS.replace("a80425fb", "a88425fb")
    assert one(container_host(status=nice), "CTR-SECCOMP-NUMA").status == "ok"
    assert one(container_host(status=DOCKER_STATUS.replace("Seccomp:\t2", "Seccomp:\t0")),
               "CTR-SECCOMP-NUMA").status == "ok"


def test_seccomp_single_gpu_is_not_an_issue_and_host_side() -> None:
    assert one(container_host(gpus=1), "CTR-SECCOMP-NUMA").status == "not-an-issue"
    r = one(docker_host(docker_object()), "CTR-SECCOMP-NUMA")
    assert r.status == "issue" and r.subjects == ("vllm",)
    assert one(docker_host(docker_object(caps=["SYS_NICE"])), "CTR-SECCOMP-NUMA").status == "ok"


def test_seccomp_in_a_container_that_only_runs_nvidia_smi_is_not_an_issue() -> None:
    # Modelled: the same container object running only `nvidia-smi` starts no NCCL peers.
    probe = docker_object(name="probe", args=[]) | {"Path": "nvidia-smi"}
    probe["Config"] |= {"Cmd": ["nvidia-smi"], "Entrypoint": None, "Image": "nvidia/cuda:12.4.1-base-ubuntu22.04"}
    r = one(docker_host(probe), "CTR-SECCOMP-NUMA")
    assert r.status == "not-an-issue" and "only runs a GPU check" in r.message
    # Real pastes: `docker run --gpus 0 nvidia/cuda:11.0-base nvidia-smi` (corpus 1460), `hello-world` (1461).
    for prefix in ("1460", "1461"):
        assert capture_result(prefix, "CTR-SECCOMP-NUMA").status == "not-an-issue"


# --- CTR-GPU-ACCESS --------------------------------------------------------------------------

def test_gpu_access_complete_is_ok() -> None:
    r = one(container_host(), "CTR-GPU-ACCESS")
    assert r.status == "ok" and "nvidia0" in r.message


def test_gpu_access_missing_uvm_and_mismatch() -> None:
    r = one(container_host(dev_extra=("nvidiactl",), user_version="570.124.06"), "CTR-GPU-ACCESS")
    assert r.status == "issue" and r.priority == "P0"
    assert "nvidia-uvm" in r.message and "version mismatch" in r.message


def test_gpu_access_env_without_nodes_and_capabilities() -> None:
    r = one(container_host(gpus=0, dev_extra=()), "CTR-GPU-ACCESS")
    assert r.status == "issue" and "did not inject" in r.message
    env = NVIDIA_ENV.replace("compute,utility", "utility")
    assert "lacks compute" in one(container_host(env=env), "CTR-GPU-ACCESS").message


def test_gpu_access_trap_unset_capabilities_and_no_gpu_container() -> None:
    env = "PATH=/usr/bin\0NVIDIA_VISIBLE_DEVICES=all\0"
    assert one(container_host(env=env), "CTR-GPU-ACCESS").status == "ok"
    assert one(container_host(env="PATH=/usr/bin\0", gpus=0, dev_extra=()), "CTR-GPU-ACCESS").status == \
        "not-applicable"


def test_gpu_access_host_side_serving_container_without_gpus() -> None:
    r = one(docker_host(docker_object(gpus=0)), "CTR-GPU-ACCESS")
    assert r.status == "issue" and r.subjects == ("vllm",)
    assert one(docker_host(docker_object()), "CTR-GPU-ACCESS").status == "ok"


# --- CTR-LXC-DEVICES -------------------------------------------------------------------------

def pve_host(conf: str, proc_devices: str = PROC_DEVICES, extra: dict[str, str] | None = None) -> MemoryHost:
    return fake_host(files={"/proc/self/cgroup": "0::/user.slice\n", "/etc/pve/lxc/101.conf": conf,
                            "/proc/devices": proc_devices, **(extra or {})},
                     dirs={"/etc/pve/lxc": ["101.conf"]})


def test_lxc_devices_complete_config_is_ok() -> None:
    assert one(pve_host(PVE_CONF), "CTR-LXC-DEVICES").status == "ok"


def test_lxc_devices_missing_uvm_rule_and_stale_major() -> None:
    conf = PVE_CONF.replace("c 508:* rwm", "c 509:* rwm")
    r = one(pve_host(conf), "CTR-LXC-DEVICES")
    assert r.status == "issue" and "c 508:0" in r.message and "509" in r.message and r.priority == "P1"


def test_lxc_devices_privileged_wildcard_trap() -> None:
    main = PVE_CONF.split("[vzdump]")[0]
    conf = "\n".join(ln for ln in main.splitlines() if "devices.allow" not in ln) + "\nlxc.cgroup2.devices.allow: a\n"
    assert one(pve_host(conf.replace("unprivileged: 1", "unprivileged: 0")), "CTR-LXC-DEVICES").status == "ok"


def test_lxc_devices_proxmox_dev_passthrough_trap() -> None:
    conf = ("arch: amd64\nhostname: llm\nmemory: 65536\nrootfs: local-zfs:subvol-101-disk-0,size=64G\n"
            "dev0: /dev/nvidia0,gid=44\ndev1: /dev/nvidiactl\ndev2: /dev/nvidia-uvm\ndev3: /dev/nvidia-uvm-tools\n")
    assert one(pve_host(conf), "CTR-LXC-DEVICES").status == "ok"


def test_lxc_devices_inside_container_missing_uvm_and_driver_mismatch() -> None:
    r = one(container_host("lxc", dev_extra=("nvidiactl",), user_version="550.54.15"), "CTR-LXC-DEVICES")
    assert r.status == "issue" and "nvidia-uvm" in r.message and "550.54.15" in r.message
    assert one(container_host("lxc"), "CTR-LXC-DEVICES").status == "ok"
    assert one(container_host(), "CTR-LXC-DEVICES").status == "not-applicable"


# --- CTR-LXC-HOST-SCOPE ----------------------------------------------------------------------

def test_lxc_host_scope_low_nofile_prlimit() -> None:
    r = one(pve_host(PVE_CONF.replace("lxc.prlimit.nofile: 1048576", "lxc.prlimit.nofile: 1024:4096")),
            "CTR-LXC-HOST-SCOPE")
    assert r.status == "issue" and "4096" in r.message


def test_lxc_host_scope_ok_and_inside_names_host_knobs() -> None:
    assert one(pve_host(PVE_CONF), "CTR-LXC-HOST-SCOPE").status == "ok"
    r = one(container_host("lxc"), "CTR-LXC-HOST-SCOPE")
    assert r.status == "ok" and "on the LXC host" in r.message
    low = one(container_host("lxc", limits=limits_with(nofile="4096")), "CTR-LXC-HOST-SCOPE")
    assert low.status == "issue" and "nofile" in low.subjects


def test_lxc_host_scope_apparmor_denial() -> None:
    dmesg = ('[ 812.1] audit: type=1400 audit(1736412345.1:88): apparmor="DENIED" operation="open" '
             'profile="lxc-101_</var/lib/lxc>" name="/dev/nvidia-uvm" pid=9123 comm="python3"\n')
    r = one(fake_host(files={"/proc/self/cgroup": "0::/user.slice\n", "/etc/pve/lxc/101.conf": PVE_CONF},
                      dirs={"/etc/pve/lxc": ["101.conf"]}, commands={"dmesg": dmesg}), "CTR-LXC-HOST-SCOPE")
    assert r.status == "issue" and "apparmor" in r.subjects


# --- CTR-CPU-LIMITS --------------------------------------------------------------------------

def test_cpu_limits_quota_below_tp_plus_4_and_throttled_v2() -> None:
    r = one(container_host(cpu_max="300000 100000", cpu_stat="nr_periods 2000\nnr_throttled 400\n"
                           "throttled_usec 9000000\n", files=vllm_process(tp=4)), "CTR-CPU-LIMITS")
    assert r.status == "issue" and "3 CPUs" in r.message and "20.0%" in r.message and r.priority == "P1"


def test_cpu_limits_v1_quota() -> None:
    files = {"/proc/self/cgroup": "4:cpu,cpuacct:/docker/3f1c\n3:cpuset:/docker/3f1c\n",
             "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "200000\n",
             "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
             "/sys/fs/cgroup/cpuset/cpuset.cpus": "0-31\n"}
    r = one(container_host(files=files), "CTR-CPU-LIMITS")
    assert r.status == "issue" and r.actual["cgroup"] == "v1"


def test_cpu_limits_enough_cpus_is_ok_and_bare_metal_not_applicable() -> None:
    assert one(container_host(), "CTR-CPU-LIMITS").status == "ok"
    assert one(fake_host(files={"/proc/self/cgroup": "0::/user.slice\n"}), "CTR-CPU-LIMITS").status == \
        "not-applicable"


def test_cpu_limits_cpuset_on_remote_numa_node() -> None:
    files = {"/sys/devices/system/node/node0/cpulist": "0-31\n", "/sys/devices/system/node/node1/cpulist": "32-63\n",
             "/sys/bus/pci/devices/0000:18:00.0/vendor": "0x10de\n",
             "/sys/bus/pci/devices/0000:18:00.0/class": "0x030200\n",
             "/sys/bus/pci/devices/0000:18:00.0/device": "0x2330\n",
             "/sys/bus/pci/devices/0000:18:00.0/numa_node": "0\n"}
    r = one(container_host(gpus=1, cpuset="32-47", files=files), "CTR-CPU-LIMITS")
    assert r.status == "issue" and "NUMA" in r.message


def test_cpu_limits_host_side_docker_cpus() -> None:
    r = one(docker_host(docker_object(nano_cpus=2_000_000_000)), "CTR-CPU-LIMITS")
    assert r.status == "issue" and "heuristic minimum 8" in r.message


# --- CTR-K8S-GPU-TOPOLOGY --------------------------------------------------------------------

def _pci_8gpu(nvswitch: bool = False) -> dict[str, str]:
    files = {}
    for i, bus in enumerate(["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]):
        bdf = f"0000:{bus}:00.0"
        files.update({f"/sys/bus/pci/devices/{bdf}/vendor": "0x10de\n", f"/sys/bus/pci/devices/{bdf}/class": "0x030200\n",
                      f"/sys/bus/pci/devices/{bdf}/device": "0x26b9\n",
                      f"/sys/bus/pci/devices/{bdf}/numa_node": f"{0 if i < 4 else 1}\n"})
    if nvswitch:
        files.update({"/sys/bus/pci/devices/0000:05:00.0/vendor": "0x10de\n",
                      "/sys/bus/pci/devices/0000:05:00.0/class": "0x068000\n",
                      "/sys/bus/pci/devices/0000:05:00.0/device": "0x22a3\n"})
    return files


def test_k8s_gpu_topology_cross_socket_pair_is_issue() -> None:
    host = container_host("kubernetes", gpus=2, files=_pci_8gpu(),
                          dirs={"/proc/driver/nvidia/gpus": ["0000:18:00.0", "0000:9a:00.0"]})
    r = one(host, "CTR-K8S-GPU-TOPOLOGY")
    assert r.status == "issue" and r.severity == "medium"


def test_k8s_gpu_topology_same_node_unknown_nvswitch_trap_and_single_gpu() -> None:
    same = container_host("kubernetes", gpus=2, files=_pci_8gpu(),
                          dirs={"/proc/driver/nvidia/gpus": ["0000:18:00.0", "0000:2a:00.0"]})
    assert one(same, "CTR-K8S-GPU-TOPOLOGY").status == "unknown"
    nvs = container_host("kubernetes", gpus=2, files=_pci_8gpu(nvswitch=True),
                         dirs={"/proc/driver/nvidia/gpus": ["0000:18:00.0", "0000:9a:00.0"]})
    assert one(nvs, "CTR-K8S-GPU-TOPOLOGY").status == "not-an-issue"
    assert one(container_host("kubernetes", gpus=1), "CTR-K8S-GPU-TOPOLOGY").status == "not-applicable"
    assert one(container_host(), "CTR-K8S-GPU-TOPOLOGY").status == "not-applicable"


def test_every_ctr_check_has_a_result_and_docs() -> None:
    from stackaudit.checks.registry import load_all

    specs = {k: v for k, v in load_all().items() if k.startswith("CTR-")}
    assert len(specs) == 10
    for spec in specs.values():
        for section in ("Reads:", "Bad value:", "Why:", "Traps:"):
            assert section in spec.doc, (spec.id, section)
    results = run_checks(container_host(), select=["CTR"])
    assert set(results) == set(specs) and all(r.status != "error" for r in results.values())
    assert CID.startswith("3f1c") and DF_SHM_64M


def test_shm_size_one_device_ggml_list_serves_from_one_process() -> None:
    # Tabby's compose log (2370) and llama-bench on one RTX 3090 Ti (2038): llama.cpp's library lists one device and no
    # source names the program, which loads ggml into its own process: nothing shares /dev/shm with it.
    for prefix in ("2370", "2038"):
        r = capture_result(prefix, "CTR-SHM-SIZE")
        assert r.status == "not-an-issue" and "ggml program" in r.message, prefix
    # Three P40s under `--split-mode row` (1472): more than one device, so the list alone settles nothing.
    assert capture_result("1472", "CTR-SHM-SIZE").status == "unknown"


def test_shm_size_ggml_list_of_two_devices_stays_open(tmp_path: Any) -> None:
    devices = ["  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes",
               "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes"]
    one_gpu = "\n".join(["ggml_cuda_init: found 1 CUDA devices:", devices[0], ""])
    two_gpus = "\n".join(["ggml_cuda_init: found 2 CUDA devices:", *devices, ""])
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    assert paste_checks(tmp_path / "one", one_gpu, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"
    assert paste_checks(tmp_path / "two", two_gpus, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_shm_size_mpi_ranks_in_a_container_without_shm_size() -> None:
    # Horovod's docker run (2389): `mpirun -np 16 -H IP1:8,IP2:8` in a container given no --shm-size or --ipc=host:
    # eight ranks of one host share Docker's 64 MiB /dev/shm.
    r = capture_result("2389", "CTR-SHM-SIZE")
    assert r.status == "issue" and "64 MiB" in r.message and "8 ranks on one host" in r.message


def test_launcher_ranks_per_host_reads_host_lists() -> None:
    from stackaudit.facts.processes import launcher_ranks_per_host

    assert launcher_ranks_per_host(["mpirun", "-np", "16", "-H", "IP1:8,IP2:8", "-bind-to", "none", "python", "x.py"]) == 8
    assert launcher_ranks_per_host(["mpirun", "-np", "4", "python", "x.py"]) == 4
    assert launcher_ranks_per_host(["mpirun", "-np", "2", "-H", "a,b", "python", "x.py"]) == 1
    assert launcher_ranks_per_host(["mpirun", "-np", "8", "--hostfile", "hosts", "python", "x.py"]) is None
    assert launcher_ranks_per_host(["torchrun", "--nproc-per-node", "8", "x.py"]) is None


def test_shm_size_mpi_one_rank_per_host_or_sized_shm_is_no_issue(tmp_path: Any) -> None:
    run = "docker run --rm -it --network=host {flag}uber/horovod:0.13.10 mpirun -np 2 -H {hosts} python train.py\n"
    (tmp_path / "one").mkdir()
    (tmp_path / "sized").mkdir()
    one = paste_checks(tmp_path / "one", run.format(flag="", hosts="IP1:1,IP2:1"), "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert one.status != "issue"
    sized = paste_checks(tmp_path / "sized", run.format(flag="--shm-size=16g ", hosts="IP1:8,IP2:8"),
                         "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert sized.status == "ok"


# --- Kubernetes pod specs: IPC_LOCK and a memory emptyDir (corpus 2380) ----------------------------

# Modelled on corpus 2380's pod: a pod spec whose GPU container adds a capability and mounts a memory emptyDir at
# /dev/shm, with an RDMA NIC shown beside it (topo -m's legend).
_POD_SPEC = """\
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
  - image: nvcr.io/nvidia/pytorch:24.05-py3
    name: worker
    securityContext:
      capabilities:
        add: [ "{cap}" ]
    resources:
      limits:
        nvidia.com/gpu: 2
        rdma/rdma_shared_device_a: 1
    command: ["sh", "-c", "sleep 1000099"]
    volumeMounts:
      - mountPath: /dev/shm
        name: shm
  volumes:
    - emptyDir:
        medium: Memory
        sizeLimit: {size}
      name: shm{quote}
```

```
root@trainer:~# nvidia-smi topo -m
\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV12\tPXB\t0-63\t0
GPU1\tNV12\t X \tPXB\t0-63\t0
mlx5_0\tPXB\tPXB\t X
```
"""


def _pod(cap: str = "IPC_LOCK", size: str = "10Gi", quote: str = "") -> str:
    return _POD_SPEC.replace("{cap}", cap).replace("{size}", size).replace("{quote}", quote)


def test_memlock_ipc_lock_capability_in_a_pod_spec_is_ok() -> None:
    r = capture_result("2380", "CTR-MEMLOCK")
    assert r.status == "ok" and "CAP_IPC_LOCK" in r.message and tuple(r.subjects) == ("pod1",)


def test_memlock_privileged_docker_run_grants_ipc_lock(tmp_path: Any) -> None:
    # Corpus 663's form: `docker run --privileged` holds every capability, CAP_IPC_LOCK among them.
    r = capture_result("663", "CTR-MEMLOCK")
    assert r.status == "ok"
    got = paste_checks(tmp_path, "docker run --privileged --gpus all --network host nvcr.io/nvidia/pytorch:24.05-py3 "
                       "torchrun --nnodes 2 --nproc-per-node 8 train.py\n", "CTR-MEMLOCK")["CTR-MEMLOCK"]
    assert got.status == "ok" and "CAP_IPC_LOCK" in got.message


def test_memlock_another_capability_or_one_container_without_it_stays_unknown(tmp_path: Any) -> None:
    # Modelled counter-examples: SYS_NICE lifts no locked-memory limit; nor does IPC_LOCK in one GPU container of two.
    assert paste_checks(tmp_path, _pod(cap="SYS_NICE"), "CTR-MEMLOCK")["CTR-MEMLOCK"].status == "unknown"
    two = _pod().replace("  volumes:", """\
  - image: nvcr.io/nvidia/pytorch:24.05-py3
    name: second
    resources:
      limits:
        nvidia.com/gpu: 2
    command: ["sh", "-c", "sleep 1000099"]
  volumes:""")
    assert paste_checks(tmp_path, two, "CTR-MEMLOCK")["CTR-MEMLOCK"].status == "unknown"


def test_shm_size_memory_emptydir_in_a_pod_held_open_is_ok() -> None:
    # Corpus 2380: the volume's name as posted, `shm'`, still names the one its mount asks for.
    r = capture_result("2380", "CTR-SHM-SIZE")
    assert r.status == "ok" and "10 GiB" in r.message


def test_shm_size_pod_held_open_by_size_and_volume_name(tmp_path: Any) -> None:
    got = paste_checks(tmp_path, _pod(quote="'"), "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert got.status == "ok" and "10 GiB" in got.message
    # Modelled counter-example: a small memory emptyDir in a pod held open stays a note, not ok (corpus 1980's form).
    assert paste_checks(tmp_path, _pod(size="64Mi"), "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"
    assert capture_result("1980", "CTR-SHM-SIZE").status == "not-an-issue"


def test_ipc_isolation_pod_held_open_with_two_pods_prompts_is_unknown(tmp_path: Any) -> None:
    # Corpus 2380: nvidia-smi topo -m typed in pod 8pxb and in pod 9pxb: the job's ranks may span both pods.
    r = capture_result("2380", "CTR-IPC-ISOLATION")
    assert r.status == "unknown" and "8pxb, 9pxb" in r.message
    second = _pod() + "\n" + _pod().split("```\n\n", 1)[1].replace("root@trainer", "root@other")
    got = paste_checks(tmp_path, second, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert got.status == "unknown" and "trainer, other" in got.message
    # Modelled counter-example: the prompts of one pod only: the ranks started there stay inside it.
    assert paste_checks(tmp_path, _pod(), "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"].status == "ok"


_HELD_TRITON = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sample-triton-ft
spec:
  replicas: 1
  selector:
    matchLabels:
      app: sample
  template:
    metadata:
      labels:
        app: sample
    spec:
      containers:
      - name: sample
        image: {image}
        command: ["/bin/sh"]
        args: ["-c", "while true; do sleep 10;done"]
        resources:
          limits:
            nvidia.com/gpu: 1
"""


def test_shm_size_serving_image_held_open_is_unknown(tmp_path: Any) -> None:
    # Corpus 2424 (triton-inference-server/server#4154): a tritonserver Deployment held open by a shell's loop of
    # sleeps, no /dev/shm volume: its engine is started inside later, with ranks not shown (issue 28, h106a).
    r = capture_result("2424", "CTR-SHM-SIZE")
    assert r.status == "unknown" and "only holds it open" in r.message
    got = paste_checks(tmp_path, _HELD_TRITON.format(image="nvcr.io/nvidia/tritonserver:21.07-py3"), "CTR-SHM-SIZE")
    assert got["CTR-SHM-SIZE"].status == "unknown"
    # Modelled counter-example: the same loop in a CUDA base image runs nothing that shares /dev/shm (corpus 1980's
    # form), and corpus 1980 itself (another thread) stays a note.
    got = paste_checks(tmp_path, _HELD_TRITON.format(image="nvidia/cuda:12.1.0-base-ubuntu22.04"), "CTR-SHM-SIZE")
    assert got["CTR-SHM-SIZE"].status == "not-an-issue"
    assert capture_result("1980", "CTR-SHM-SIZE").status == "not-an-issue"


def test_keep_alive_shell_loop() -> None:
    from stackaudit.facts.docker import _KEEP_ALIVE

    assert _KEEP_ALIVE.fullmatch("while true; do sleep 10;done") and _KEEP_ALIVE.fullmatch("while :; do sleep 1; done")
    # Modelled: a loop that does work between its sleeps holds more than the container open.
    assert not _KEEP_ALIVE.fullmatch("while true; do python poll.py; sleep 10; done")
    import time
    start = time.monotonic()
    _KEEP_ALIVE.fullmatch("while true; do sleep " + " " * 200000 + "1; done")
    assert time.monotonic() - start < 0.5
