"""CTR facts: cgroups (v1, v2), /dev/shm, limits, docker inspect, LXC configs, device nodes."""

from __future__ import annotations

import contextlib
import json
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.facts import cgroups, devices, docker, limits, lxc, shm
from stackaudit.facts._parse import ParseError, cuda_visible_devices, cuda_visible_entries
from stackaudit.facts.container_specs import containers_from_docker_run
from stackaudit.facts.registry import PROVIDERS, FactUnavailable, load_all
from stackaudit.host.base import Host
from stackaudit.host.memory import fake_host

T = TypeVar("T")


class Ctx:
    """A minimal FactContext: providers called directly, other facts resolved on demand."""

    def __init__(self, host: Host) -> None:
        self._host = host
        load_all()

    @property
    def host(self) -> Host:
        return self._host

    def fact(self, name: str, kind: type[T]) -> T:
        value = PROVIDERS[name].func(self)
        assert isinstance(value, kind)
        return value

    def optional(self, name: str, kind: type[T]) -> T | None:
        try:
            return self.fact(name, kind)
        except Exception:
            return None


# --- cgroups ---------------------------------------------------------------------------------

V2_FILES = {
    "/proc/self/cgroup": "0::/\n",
    "/sys/fs/cgroup/cpu.max": "400000 100000\n",
    "/sys/fs/cgroup/cpu.stat": "usage_usec 8812345\nuser_usec 7000000\nsystem_usec 1812345\nnr_periods 1200\n"
                               "nr_throttled 300\nthrottled_usec 41234567\nnr_bursts 0\nburst_usec 0\n",
    "/sys/fs/cgroup/cpuset.cpus.effective": "0-3\n",
    "/sys/fs/cgroup/memory.max": "68719476736\n",
}


def test_cgroup_v2_container_limits() -> None:
    cg = cgroups.cgroup_limits(Ctx(fake_host(files=V2_FILES)))
    assert cg.version == 2
    assert cg.cpu_limit == 4.0
    assert cg.cpuset_cpus == (0, 1, 2, 3)
    assert cg.nr_throttled == 300 and cg.throttled_ratio == 0.25
    assert cg.memory_max_bytes == 64 * 2**30


def test_cgroup_v2_without_namespace_reads_own_path_first() -> None:
    files = {"/proc/self/cgroup": "0::/system.slice/docker-abc.scope\n",
             "/sys/fs/cgroup/system.slice/docker-abc.scope/cpu.max": "max 100000\n",
             "/sys/fs/cgroup/system.slice/docker-abc.scope/memory.max": "max\n"}
    cg = cgroups.cgroup_limits(Ctx(fake_host(files=files)))
    assert cg.cpu_quota_us is None and cg.cpu_period_us == 100000 and cg.cpu_limit is None
    assert cg.memory_unlimited and cg.memory_max_bytes is None


V1_CGROUP = """12:devices:/docker/3f1c
11:cpuset:/docker/3f1c
10:memory:/docker/3f1c
4:cpu,cpuacct:/docker/3f1c
1:name=systemd:/docker/3f1c
0::/system.slice/containerd.service
"""


def test_cgroup_v1_container_limits() -> None:
    files = {
        "/proc/self/cgroup": V1_CGROUP,
        "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "200000\n",
        "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
        "/sys/fs/cgroup/cpu,cpuacct/cpu.stat": "nr_periods 500\nnr_throttled 5\nthrottled_time 2000000000\n",
        "/sys/fs/cgroup/cpuset/cpuset.effective_cpus": "0-1\n",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        "/sys/fs/cgroup/devices/devices.list": "c 1:5 rwm\nc 195:* rwm\nc 508:* rw\n",
    }
    cg = cgroups.cgroup_limits(Ctx(fake_host(files=files)))
    assert cg.version == 1
    assert cg.cpu_limit == 2.0 and cg.cpuset_cpus == (0, 1)
    assert cg.throttled_usec == 2_000_000
    assert cg.memory_max_bytes is None and cg.memory_unlimited
    assert cg.device_rules is not None and cg.device_rules[1].allows("c", 195, 255)
    assert not cg.device_rules[0].allows("c", 195, 0)


def test_cgroup_v1_no_quota_is_none() -> None:
    files = {"/proc/self/cgroup": V1_CGROUP, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
             "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"}
    assert cgroups.cgroup_limits(Ctx(fake_host(files=files))).cpu_limit is None


def test_cgroup_missing_is_unavailable() -> None:
    with pytest.raises(FactUnavailable):
        cgroups.cgroup_limits(Ctx(fake_host(files={})))


@pytest.mark.parametrize("text", ["", "garbage", "1:cpu", "x:cpu:/"])
def test_proc_cgroup_malformed(text: str) -> None:
    with pytest.raises(ParseError):
        cgroups.parse_proc_cgroup(text)


def test_cgroup_value_parsers() -> None:
    assert cgroups.parse_cpu_max("max 100000") == (None, 100000)
    with pytest.raises(ParseError):
        cgroups.parse_cpu_max("max")
    assert cgroups.parse_memory_limit("max") is None
    with pytest.raises(ParseError):
        cgroups.parse_memory_limit("12G")
    with pytest.raises(ParseError):
        cgroups.parse_devices_list("c 195 rwm")


# --- /dev/shm --------------------------------------------------------------------------------

DOCKER_MOUNTINFO = """\
612 530 0:178 / / rw,relatime master:250 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/ABC:/var/lib/docker/overlay2/l/DEF,upperdir=/var/lib/docker/overlay2/9a/diff,workdir=/var/lib/docker/overlay2/9a/work
613 612 0:181 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
618 612 0:185 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
619 618 0:30 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate,memory_recursiveprot
620 615 0:176 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64
621 612 259:2 /var/lib/docker/containers/3f1c2d/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/nvme0n1p2 rw
622 612 259:2 /var/lib/docker/containers/3f1c2d/hostname /etc/hostname rw,relatime - ext4 /dev/nvme0n1p2 rw
"""
DF_SHM_64M = "Filesystem     1024-blocks  Used Available Capacity Mounted on\nshm                  65536     0     65536       0% /dev/shm\n"


def test_shm_from_mountinfo_and_df() -> None:
    host = fake_host(files={"/proc/self/mountinfo": DOCKER_MOUNTINFO,
                            "/proc/sys/kernel/random/boot_id": "2c3b1e0e-8d7c-4b5e-9a8f-5a0c8b9e7d11\n"},
                     commands={"df -k -P /dev/shm": DF_SHM_64M})
    info = shm.shm(Ctx(host))
    assert info.size_bytes == 64 * 2**20 and info.used_bytes == 0
    assert info.device == "0:176" and info.mount is not None and info.mount.option("size") == "65536k"
    assert info.boot_id.startswith("2c3b1e0e")
    assert info.logind_remove_ipc is None


def test_shm_from_proc_mounts_when_df_missing() -> None:
    host = fake_host(files={"/proc/mounts": "overlay / overlay rw 0 0\nshm /dev/shm tmpfs rw,nosuid,size=2097152k 0 0\n"})
    info = shm.shm(Ctx(host))
    assert info.size_bytes == 2 * 2**30 and info.used_bytes is None


def test_shm_logind_remove_ipc_default_and_override() -> None:
    assert shm.parse_logind_remove_ipc(["[Login]\n#RemoveIPC=yes\n"]) is True
    assert shm.parse_logind_remove_ipc(["[Login]\n#RemoveIPC=yes\n", "[Login]\nRemoveIPC=no\n"]) is False
    host = fake_host(files={"/etc/systemd/logind.conf": "[Login]\nRemoveIPC=no\n"},
                     commands={"df -k -P /dev/shm": DF_SHM_64M})
    assert shm.shm(Ctx(host)).logind_remove_ipc is False


def test_shm_nothing_readable_is_unavailable() -> None:
    with pytest.raises(FactUnavailable):
        shm.shm(Ctx(fake_host(files={})))


def test_mountinfo_truncated_line_is_parse_error() -> None:
    with pytest.raises(ParseError):
        shm.parse_mountinfo("620 615 0:176 / /dev/shm rw,nosuid")


# --- limits ----------------------------------------------------------------------------------

PROC_LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             unlimited            unlimited            bytes
Max data size             unlimited            unlimited            bytes
Max stack size            8388608              unlimited            bytes
Max core file size        0                    unlimited            bytes
Max resident set          unlimited            unlimited            bytes
Max processes             2061413              2061413              processes
Max open files            1048576              1048576              files
Max locked memory         65536                65536                bytes
Max address space         unlimited            unlimited            bytes
Max file locks            unlimited            unlimited            locks
Max pending signals       2061413              2061413              signals
Max msgqueue size         819200               819200               bytes
Max nice priority         0                    0
Max realtime priority     0                    0
Max realtime timeout      unlimited            unlimited            us
"""


def test_proc_limits_parse_and_roundtrip() -> None:
    lim = limits.parse_limits(PROC_LIMITS)
    assert lim.soft(limits.MEMLOCK) == 65536 and lim.hard(limits.STACK) is None
    assert lim.is_unlimited(limits.STACK, 1)
    assert limits.parse_limits(limits.format_limits(lim.values)).values == lim.values
    read = load_all()["self_limits"].func  # the @parser of /proc/self/limits, reading through the host
    assert read(Ctx(fake_host(files={"/proc/self/limits": PROC_LIMITS}))).soft(limits.NOFILE) == 1048576


@pytest.mark.parametrize("text", ["", "Limit Soft Hard\n", "Max locked memory  lots  lots  bytes\n"])
def test_proc_limits_malformed(text: str) -> None:
    with pytest.raises(ParseError):
        limits.parse_limits(text)


def test_status_security() -> None:
    sec = limits.parse_status_security("Name:\tpython3\nUid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n"
                                       "CapBnd:\t00000000a80425fb\nNoNewPrivs:\t0\nSeccomp:\t2\n")
    assert sec.seccomp == 2 and sec.has_cap(limits.CAP_SYS_NICE) is False and sec.uid == 0
    sec = limits.parse_status_security("CapEff:\t00000000a88425fb\nSeccomp:\t2\n")
    assert sec.has_cap(limits.CAP_SYS_NICE) is True
    with pytest.raises(ParseError):
        limits.parse_status_security("Name: x\n")


# --- docker inspect --------------------------------------------------------------------------

CID = "3f1c2d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e"


def docker_object(name: str = "vllm", cid: str = CID, shm_size: int = 67108864, ipc: str = "private",
                  caps: list[str] | None = None, ulimits: list[dict[str, Any]] | None = None,
                  gpus: int = -1, args: list[str] | None = None, env: list[str] | None = None,
                  runtime: str = "runc", nano_cpus: int = 0, cpuset: str = "") -> dict[str, Any]:
    """A `docker inspect` container object as Docker 26 prints it (trimmed to the fields we read)."""
    return {
        "Id": cid,
        "Created": "2026-01-12T09:14:03.512Z",
        "Path": "vllm",
        "Args": args if args is not None else ["serve", "meta-llama/Llama-3.1-70B-Instruct",
                                                "--tensor-parallel-size", "4", "--api-key", "sk-live-SECRET123"],
        "State": {"Status": "running", "Running": True, "Pid": 41234},
        "Image": "sha256:9b1f0e6c",
        "Name": "/" + name,
        "HostConfig": {
            "Binds": ["/data/hf:/root/.cache/huggingface"],
            "NetworkMode": "host",
            "IpcMode": ipc,
            "PidMode": "",
            "Privileged": False,
            "CapAdd": caps,
            "CapDrop": None,
            "SecurityOpt": None,
            "ShmSize": shm_size,
            "Runtime": runtime,
            "Memory": 0,
            "NanoCpus": nano_cpus,
            "CpuPeriod": 0,
            "CpuQuota": 0,
            "CpusetCpus": cpuset,
            "Devices": [],
            "DeviceRequests": [{"Driver": "", "Count": gpus, "DeviceIDs": None, "Capabilities": [["gpu"]],
                                "Options": {}}] if gpus else None,
            "Ulimits": ulimits,
        },
        "Config": {
            "Hostname": "gpu-node-07",
            "Env": env if env is not None else [
                "HF_TOKEN=hf_plantedSECRETtoken", "OPENAI_API_KEY=sk-plantedSECRETkey",
                "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin", "NVIDIA_VISIBLE_DEVICES=all",
                "NVIDIA_DRIVER_CAPABILITIES=compute,utility"],
            "Cmd": ["serve"],
            "Image": "vllm/vllm-openai:v0.11.0",
            "Entrypoint": ["vllm"],
        },
    }


def test_docker_inspect_parse() -> None:
    [c] = docker.parse_docker_inspect(json.dumps([docker_object(ulimits=[{"Name": "memlock", "Hard": -1,
                                                                            "Soft": -1}])]))
    assert c.name == "vllm" and c.shm_size == 64 * 2**20 and c.ipc_mode == "private"
    assert c.gpu_requested and c.gpu_count is None and c.looks_like_serving and c.tensor_parallel == 4
    assert not c.cap_sys_nice and c.ulimit("memlock") is not None
    assert c.env_value("NVIDIA_VISIBLE_DEVICES") == "all"


def test_docker_inspect_with_chatter_and_device_ids() -> None:
    obj = docker_object(gpus=0, caps=["SYS_NICE"])
    obj["HostConfig"]["DeviceRequests"] = [{"Driver": "nvidia", "Count": 0, "DeviceIDs": ["0", "1"],
                                            "Capabilities": [["gpu"]]}]
    text = "here is my container:\n" + json.dumps([obj], indent=4) + "\nthanks!"
    [c] = docker.parse_docker_inspect(text)
    assert c.gpu_count == 2 and c.cap_sys_nice


@pytest.mark.parametrize("text", ["", "no json here", "[{\"Id\": \"abc\"}]", "{\"a\": 1}", "[1, 2]", '[{"HostConfig": {'])
def test_docker_inspect_malformed(text: str) -> None:
    with pytest.raises(ParseError):
        docker.parse_docker_inspect(text)


def test_docker_provider_runs_ps_then_inspect() -> None:
    out = json.dumps([docker_object()])
    host = fake_host(which={"docker": "/usr/bin/docker"},
                     commands={("docker", "ps", "-q"): CID[:12] + "\n", ("docker", "inspect", CID[:12]): out})
    assert docker.docker_containers(Ctx(host)).containers[0].name == "vllm"
    assert docker.docker_containers(Ctx(fake_host(which={"docker": "/usr/bin/docker"},
                                                  commands={("docker", "ps", "-q"): ""}))).containers == ()
    with pytest.raises(FactUnavailable):
        docker.docker_containers(Ctx(fake_host()))  # no docker CLI


def test_docker_provider_permission_denied_hints_root() -> None:
    from stackaudit.host.base import CommandResult

    denied = CommandResult(("docker", "ps", "-q"), 1, "", "permission denied while trying to connect to the Docker "
                           "daemon socket at unix:///var/run/docker.sock")
    host = fake_host(which={"docker": "/usr/bin/docker"}, commands={("docker", "ps", "-q"): denied})
    with pytest.raises(FactUnavailable) as err:
        docker.docker_containers(Ctx(host))
    assert "docker group" in err.value.hint


# --- LXC -------------------------------------------------------------------------------------

PVE_CONF = """arch: amd64
cores: 16
features: nesting=1
hostname: llm
memory: 65536
ostype: ubuntu
rootfs: local-zfs:subvol-101-disk-0,size=200G
swap: 0
unprivileged: 1
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 508:* rwm
lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file
lxc.prlimit.nofile: 1048576

[vzdump]
memory: 1024
"""
NATIVE_CONF = """# Template used to create this container: /usr/share/lxc/templates/lxc-download
lxc.include = /usr/share/lxc/config/common.conf
lxc.arch = linux64
lxc.idmap = u 0 100000 65536
lxc.idmap = g 0 100000 65536
lxc.cgroup2.devices.allow = a
lxc.mount.entry = /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.apparmor.profile = unconfined
"""
PROC_DEVICES = """Character devices:
  1 mem
  4 /dev/vc/0
195 nvidia-frontend
508 nvidia-uvm
511 nvidia-caps

Block devices:
  8 sd
"""


def test_proxmox_config_parse() -> None:
    cfg = lxc.parse_lxc_config(PVE_CONF, "101", "/etc/pve/lxc/101.conf")
    assert cfg.flavor == "proxmox" and cfg.unprivileged and cfg.gpu_intent and not cfg.truncated
    assert cfg.allows("c", 195, 255) and cfg.allows("c", 508, 0) and not cfg.allows("c", 509, 0)
    assert "/dev/nvidia-uvm" in cfg.exposed_paths()
    assert cfg.last("memory") == "65536"  # the snapshot section does not override the config
    assert cfg.prlimit("nofile") == "1048576" and cfg.cpus == 16


def test_native_config_parse_and_privileged_wildcard() -> None:
    cfg = lxc.parse_lxc_config(NATIVE_CONF, "gpu", "/var/lib/lxc/gpu/config")
    assert cfg.flavor == "lxc" and cfg.unprivileged and cfg.allows("c", 508, 1)
    assert cfg.apparmor_profile == "unconfined"


def test_truncated_config_is_marked() -> None:
    cfg = lxc.parse_lxc_config(PVE_CONF.split("[vzdump]")[0] + "lxc.mou\n")
    assert cfg.truncated


def test_proc_devices_and_provider() -> None:
    assert lxc.parse_proc_devices(PROC_DEVICES)["nvidia-uvm"] == 508
    host = fake_host(files={"/etc/pve/lxc/101.conf": PVE_CONF, "/proc/devices": PROC_DEVICES,
                            "/var/lib/lxc/gpu/config": NATIVE_CONF},
                     dirs={"/etc/pve/lxc": ["101.conf"], "/var/lib/lxc": ["gpu"]})
    found = lxc.lxc_configs(Ctx(host))
    assert [c.name for c in found.configs] == ["101", "gpu"] and found.major("nvidia-caps") == 511


def test_lxc_provider_no_lxc_host() -> None:
    assert lxc.lxc_configs(Ctx(fake_host(files={}))).configs == ()


@pytest.mark.parametrize("text", ["", "# only a comment\n", "just words here\n"])
def test_lxc_config_malformed(text: str) -> None:
    with pytest.raises(ParseError):
        lxc.parse_lxc_config(text)


# --- device nodes ----------------------------------------------------------------------------

NVRM = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  (dvs-builder@U16-I3-B03-4-3)"
        "  Thu Jan 23 23:13:21 UTC 2025\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")


def test_gpu_devices_nodes_env_and_versions() -> None:
    host = fake_host(
        files={"/proc/self/environ": "PATH=/usr/bin\0NVIDIA_VISIBLE_DEVICES=0,1\0NVIDIA_DRIVER_CAPABILITIES=all\0"
                                     "HF_TOKEN=hf_x\0",
               "/proc/driver/nvidia/version": NVRM},
        dirs={"/dev": ["null", "nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "shm"],
              "/proc/driver/nvidia/gpus": ["0000:18:00.0", "0000:3b:00.0"]},
        links={"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "libnvidia-ml.so.570.86.15"})
    dev = devices.gpu_devices(Ctx(host))
    assert dev.gpu_nodes == ("nvidia0", "nvidia1") and dev.has("nvidia-uvm")
    assert dev.env == {"NVIDIA_VISIBLE_DEVICES": "0,1", "NVIDIA_DRIVER_CAPABILITIES": "all"}  # HF_TOKEN not kept
    assert dev.kernel_version == "570.86.15" == dev.userspace_version and not dev.version_mismatch
    other = fake_host(files={"/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                                            "550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"},
                      dirs={"/dev": ["nvidia0", "nvidiactl"]})
    assert devices.gpu_devices(Ctx(other)).kernel_version == "550.54.15"
    garbage = fake_host(files={"/proc/driver/nvidia/version": "garbage\n"}, dirs={"/dev": ["nvidia0", "nvidiactl"]})
    assert devices.gpu_devices(Ctx(garbage)).kernel_version is None


# --- robustness ------------------------------------------------------------------------------

PARSERS = [cgroups.parse_proc_cgroup, cgroups.parse_cpu_max, cgroups.parse_cpu_stat, cgroups.parse_memory_limit,
           cgroups.parse_devices_list, shm.parse_mountinfo, shm.parse_mounts, shm.parse_df_table, limits.parse_limits,
           limits.parse_status_security, docker.parse_docker_inspect, lxc.parse_lxc_config, lxc.parse_proc_devices]
SAMPLES = [V1_CGROUP, DOCKER_MOUNTINFO, DF_SHM_64M, PROC_LIMITS, PVE_CONF, NATIVE_CONF, PROC_DEVICES,
           json.dumps([docker_object()])]


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("cut", [0.3, 0.7])
def test_truncated_and_non_utf8_inputs_raise_only_parse_error(parser: Any, cut: float) -> None:
    for sample in SAMPLES:
        raw = sample.encode()
        for text in (sample[: int(len(sample) * cut)], (raw[:40] + b"\xff\xfe\x80" + raw[40:]).decode(
                "utf-8", errors="replace")):
            with contextlib.suppress(ParseError):
                parser(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([*SAMPLES, "\x00", "�", "max", "c 195:* rwm", "- tmpfs", ": ", "= "]),
                max_size=6).map("".join), st.integers(min_value=0, max_value=400))
def test_spliced_inputs_raise_only_parse_error(text: str, cut: int) -> None:
    for parser in PARSERS:
        with contextlib.suppress(ParseError):
            parser(text[cut:])


@pytest.mark.parametrize(("value", "entries", "devices"), [
    (None, [], None),
    ("", [], None),
    ("'0, 1'", ["0", "1"], ["0", "1"]),
    ('"2"', ["2"], ["2"]),
    ("0,,3,", ["0", "3"], ["0", "3"]),
    ("GPU-8f3e2a1b-0000-1111-2222-333344445555,MIG-GPU-1/2/0", ["GPU-8f3e2a1b-0000-1111-2222-333344445555",
                                                               "MIG-GPU-1/2/0"],
     ["GPU-8f3e2a1b-0000-1111-2222-333344445555", "MIG-GPU-1/2/0"]),
    ("all", ["all"], None),
    ("$GPUS", ["$GPUS"], None),
    ("0,all", ["0", "all"], None),
    ("-1", ["-1"], None),
])
def test_cuda_visible_devices_one_reading(value: str | None, entries: list[str], devices: list[str] | None) -> None:
    """One reading of CUDA_VISIBLE_DEVICES serves the process, container and command readers: quotes and blank
    entries dropped; a list counts as devices only where every entry names one (an index, a GPU or MIG UUID)."""
    assert cuda_visible_entries(value) == entries
    assert cuda_visible_devices(value) == devices
    run = f"docker run --gpus all -e CUDA_VISIBLE_DEVICES={value} vllm/vllm-openai --model m\n" if value else ""
    if run and "$" not in run:
        (c,) = containers_from_docker_run(run).containers
        assert c.cuda_visible_count == (len(devices) if devices else None)
