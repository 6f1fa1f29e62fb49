"""CTR importers: df, ulimit -a, docker inspect, LXC/Proxmox configs; secrets; the shared captures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stackaudit.engine.collect import Collector
from stackaudit.engine.testing import audit_report, run_checks
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.shm import ShmInfo
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise, strip_header
from test_ctr_facts import PVE_CONF, docker_object

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"

DF_H = """user@pod:~$ df -h
Filesystem      Size  Used Avail Use% Mounted on
overlay          24T  1.7T   21T   8% /
tmpfs            64M     0   64M   0% /dev
shm              64M   12K   64M   1% /dev/shm
/dev/nvme0n1p2  1.8T  1.2T  512G  71% /etc/hosts
user@pod:~$ exit
"""
DF_K = """Filesystem     1K-blocks      Used Available Use% Mounted on
udev           263921180         0 263921180   0% /dev
tmpfs          264137792    102400 264035392   1% /dev/shm
/dev/md0      3748845104 512345678 3045000000  15% /
"""
ULIMIT_BASH = """$ ulimit -a
real-time non-blocking time  (microseconds, -R) unlimited
core file size              (blocks, -c) 0
data seg size               (kbytes, -d) unlimited
scheduling priority                 (-e) 0
file size                   (blocks, -f) unlimited
pending signals                     (-i) 2061413
max locked memory           (kbytes, -l) 64
max memory size             (kbytes, -m) unlimited
open files                          (-n) 1048576
pipe size                (512 bytes, -p) 8
POSIX message queues         (bytes, -q) 819200
real-time priority                  (-r) 0
stack size                  (kbytes, -s) 8192
cpu time                   (seconds, -t) unlimited
max user processes                  (-u) 2061413
virtual memory              (kbytes, -v) unlimited
file locks                          (-x) unlimited
"""
ULIMIT_DASH = """time(seconds)        unlimited
file(blocks)         unlimited
data(kbytes)         unlimited
stack(kbytes)        8192
coredump(blocks)     0
memory(kbytes)       unlimited
locked memory(kbytes) 8192
process              63704
nofiles              1024
vmemory(kbytes)      unlimited
locks                unlimited
rtprio               0
"""
ULIMIT_ZSH = """-t: cpu time (seconds)              unlimited
-f: file size (blocks)              unlimited
-d: data seg size (kbytes)          unlimited
-s: stack size (kbytes)             8192
-c: core file size (blocks)         0
-l: locked-in-memory size (kbytes)  unlimited
-u: processes                       63431
-n: file descriptors                1024
"""


def _host(text: str) -> MemoryHost:
    result = recognise(text)
    assert result.recognised, text[:80]
    return MemoryHost(result.record)


def _shm(host: MemoryHost) -> ShmInfo:
    load_facts()
    value = Collector(host).results(["shm"])["shm"]
    assert isinstance(value, ShmInfo), value
    return value


def test_df_h_is_recorded_verbatim_and_gives_the_shm_row_in_kib() -> None:
    host = _host(DF_H)
    # Under the argv its prompt shows, as pasted (no `df -k -P` rebuilt from it).
    assert host.run(["df", "-h"]).stdout == "".join(DF_H.splitlines(keepends=True)[1:6])
    assert ("df", "-k", "-P") not in host.record.commands and ("df", "-k", "-P", "/dev/shm") not in host.record.commands
    info = _shm(host)
    assert (info.size_bytes, info.used_bytes, info.mounted_on) == (65536 * 1024, 12 * 1024, "/dev/shm")
    load_facts()
    assert Collector(host).results(["container"])["container"].kind == "container"  # overlay root in the table


def test_df_k_and_shm_check_from_paste() -> None:
    host = _host("some chatter\n" + DF_K + "\nmore chatter\n")
    assert host.run(["df"]).stdout == DF_K  # 1K-blocks header and no prompt: plain `df`
    assert _shm(host).size_bytes == 264137792 * 1024


def test_df_without_shm_row_records_no_shm() -> None:
    host = _host("Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/sda1 1000 10 990 1% /\n")
    assert ("df",) in host.record.commands
    load_facts()
    assert not isinstance(Collector(host).results(["shm"])["shm"], ShmInfo)


def test_a_df_listing_the_hosts_boot_and_docker_mounts_is_the_hosts_2717() -> None:
    """Real: corpus 2717 (ollama/ollama#6433): `df -h` at `root@ollama` lists efivarfs, /boot, /boot/efi and Docker's
    overlay2 `merged` root from outside: the host's shell. /dev/shm is its 30G tmpfs (ok); no container to reach GPUs."""
    from corpus import capture_checks
    results = capture_checks("2717", "CTR-SHM-SIZE", "CTR-GPU-ACCESS")
    assert results["CTR-SHM-SIZE"].status == "ok" and "30 GiB" in results["CTR-SHM-SIZE"].message
    assert results["CTR-GPU-ACCESS"].status == "not-applicable"


@pytest.mark.parametrize("rows", [
    "overlay 100G 10G 90G 10% /\n/dev/sda2 2.0G 183M 1.7G 10% /boot\n",  # an overlay root wins: a container
    "/dev/sda1 100G 10G 90G 10% /\ntmpfs 30G 0 30G 0% /dev/shm\n",  # no mount only the host has: open
])
def test_a_df_without_host_only_mounts_or_with_an_overlay_root_is_no_host(rows: str) -> None:
    """Counter-examples (modelled): an overlay root is a container's, whatever else it lists; a root and /dev/shm alone
    say nothing of where the shell runs."""
    host = _host("$ df -h\nFilesystem Size Used Avail Use% Mounted on\n" + rows)
    load_facts()
    info = Collector(host).results(["container"])["container"]
    assert not getattr(info, "on_host", False)


_OOM_KILL = ("[ 2448.628961] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=user.slice,mems_allowed=0,"
             "global_oom,task_memcg={memcg},task={task},pid=16014,uid=1000\n"
             "[ 2448.628970] Out of memory: Killed process 16014 ({task}) total-vm:3069420kB, anon-rss:2111980kB, "
             "file-rss:2412kB, shmem-rss:0kB, UID:1000 pgtables:5204kB oom_score_adj:0\n")


def test_an_engine_killed_in_a_login_session_ran_on_the_host_2715() -> None:
    """Real: corpus 2715 (vllm-project/vllm#38117): the OOM report kills vLLM's cicc JIT compiler in
    /user.slice/user-1000.slice/session-4.scope: a session on the machine, no container around vLLM."""
    from corpus import capture_checks
    results = capture_checks("2715", "CTR-SHM-SIZE", "CTR-GPU-ACCESS")
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(results, "not-applicable")
    assert "session-4.scope" in results["CTR-SHM-SIZE"].message


@pytest.mark.parametrize(("memcg", "task"), [
    ("/user.slice/user-1000.slice/session-4.scope", "firefox"),  # another program of the session: says nothing
    ("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-4f2a.scope", "python3"),  # rootless Podman
    ("/system.slice/docker-4f2a9c1e7b3d.scope", "python3"),  # a Docker container
])
def test_an_oom_kill_outside_a_session_or_of_another_program_says_nothing(tmp_path: Path, memcg: str,
                                                                          task: str) -> None:
    """Counter-examples (modelled): only an engine's process (or its compiler) in a login session's scope is the
    host's; a container's memcg is its runtime's."""
    from corpus import paste_checks
    results = paste_checks(tmp_path, _OOM_KILL.format(memcg=memcg, task=task), "CTR-SHM-SIZE")
    assert "session" not in results["CTR-SHM-SIZE"].message


@pytest.mark.parametrize("text,memlock,nofile", [(ULIMIT_BASH, "65536", "1048576"), (ULIMIT_DASH, "8388608", "1024"),
                                                 (ULIMIT_ZSH, "unlimited", "1024")])
def test_ulimit_forms_give_the_shells_soft_limits(text: str, memlock: str, nofile: str) -> None:
    host = _host("user@box:~$ ulimit -a\n" + text + "user@box:~$\n")
    assert host.doc("ulimit_a") == text.removeprefix("$ ulimit -a\n") and "/proc/self/limits" not in host.record.files  # verbatim, no /proc file
    load_facts()
    lim = Collector(host).results(["self_limits"])["self_limits"]
    assert lim.values["Max locked memory"] == (memlock, "unknown")
    assert lim.values["Max open files"][0] == nofile
    assert lim.values["Max stack size"][0] == "8388608"


def test_docker_inspect_paste_with_chatter_feeds_the_docker_fact() -> None:
    text = "$ docker inspect vllm\n" + json.dumps([docker_object()], indent=4) + "\n$ echo done\ndone\n"
    host = _host(text)
    # Recorded verbatim as a pasted `docker inspect` (no `docker ps -q` listing invented).
    pasted, recorded = json.dumps([docker_object()], indent=4).splitlines(), host.doc("docker_inspect").splitlines()
    assert len(pasted) == len(recorded) and all(a == b or "<redacted>" in b for a, b in zip(pasted, recorded, strict=True))
    assert not any(argv[0] == "docker" for argv in host.record.commands) and "docker" not in host.record.which
    results = run_checks(host, select=["CTR-SHM-SIZE", "CTR-SECCOMP-NUMA"])
    assert results["CTR-SHM-SIZE"].status == "issue" and results["CTR-SHM-SIZE"].subjects == ("vllm",)
    assert results["CTR-SECCOMP-NUMA"].status == "issue"


def test_docker_inspect_secrets_never_reach_facts_or_reports() -> None:
    text = "docker inspect output:\n" + json.dumps([docker_object()], indent=2)
    host = _host(text)
    recorded = "".join(r.stdout for r in host.record.commands.values()) + "".join(host.record.docs.values())
    assert "<redacted>" in recorded
    for secret in ("hf_plantedSECRETtoken", "sk-plantedSECRETkey", "sk-live-SECRET123"):
        assert secret not in recorded
    report = audit_report(host, select=["CTR"])
    dumped = json.dumps([r.to_json() for r in report.results])
    for secret in ("hf_plantedSECRETtoken", "sk-plantedSECRETkey", "sk-live-SECRET123"):
        assert secret not in dumped


def test_two_docker_inspects_in_one_paste() -> None:
    a = docker_object(name="rank0", cid="b" * 64)
    b = docker_object(name="rank1", cid="c" * 64)
    host = _host(json.dumps([a], indent=4) + "\n\nand the second one:\n" + json.dumps([b], indent=4))
    load_facts()
    containers = Collector(host).results(["docker_containers"])["docker_containers"].containers
    assert [(c.name, c.id) for c in containers] == [("rank0", "b" * 64), ("rank1", "c" * 64)]


def test_proxmox_config_named_by_cat_line() -> None:
    text = "root@pve:~# cat /etc/pve/lxc/101.conf\n" + PVE_CONF + "root@pve:~#\n"
    host = _host(text)
    assert host.list_dir("/etc/pve/lxc") == ["101.conf"]
    assert b"lxc.cgroup2.devices.allow: c 508:* rwm" in host.read_bytes("/etc/pve/lxc/101.conf")


def test_native_lxc_config_and_unnamed_proxmox() -> None:
    native = ("$ cat /var/lib/lxc/llm/config\nlxc.include = /usr/share/lxc/config/common.conf\n"
              "lxc.arch = linux64\nlxc.cgroup2.devices.allow = c 195:* rwm\n"
              "lxc.mount.entry = /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n")
    host = _host(native)
    assert host.list_dir("/var/lib/lxc") == ["llm"]
    host = _host("my config is:\n" + PVE_CONF)
    assert host.list_dir("/etc/pve/lxc") == ["pasted1.conf"]


def test_prose_with_colons_is_not_an_lxc_config() -> None:
    text = "Driver Version: 550.54.15\nCUDA Version: 12.4\nmemory: lots\n"
    assert not any(kind == "lxc config" for kind, _, _ in recognise(text).recognised)


# --- the corpus captures (tests/data/captures) ---------------------------------------------------

def _capture(name: str) -> Path:
    path = CAPTURES / name
    assert path.is_file(), f"tests/data/captures/{name} is missing from the repository"
    return path


def test_capture_24_proxmox_truncated_config() -> None:
    """Header: only 195:0 and 195:1 allowed; nvidiactl / nvidia-uvm not in the (cut-off) copy ->
    unknown for this truncated copy (KB CTR-LXC-DEVICES: the rules are needed; a partial copy cannot
    show them)."""
    path = _capture("24-proxmox-lxc-conf-unprivileged-2x-nvidia.txt")
    kinds = [k for k, _, _ in recognise(strip_header(path.read_text())).recognised]
    assert "lxc config" in kinds
    results = run_checks(load_pasted([str(path)]), select=["CTR"])
    dev = results["CTR-LXC-DEVICES"]
    assert dev.status == "unknown" and "nvidiactl" in dev.message and "cut off" in dev.message
    scope = results["CTR-LXC-HOST-SCOPE"]
    assert scope.status == "ok" and "unprivileged" in scope.message and "16384 MiB" in scope.message
    assert all(r.status != "error" for r in results.values())


def test_capture_33_k8s_pod_shm_and_memlock() -> None:
    """Header: /dev/shm 64 MB in the pod -> finding (KB CTR-SHM-SIZE, fix emptyDir / hostIPC);
    ulimit -l 64 KB -> unknown: the pod's two-line topo -m is an excerpt, no whole source of devices shows
    that it has no RDMA NIC (issue 28: absence only from a whole source)."""
    path = _capture("33-h100-k8s-pod-shm-64m-memlock-64k-shared-gpu.txt")
    results = run_checks(load_pasted([str(path)]), select=["CTR"])
    shm = results["CTR-SHM-SIZE"]
    assert shm.status == "issue" and shm.priority == "P0" and "emptyDir" in shm.fix.persistent
    memlock = results["CTR-MEMLOCK"]
    assert memlock.status == "unknown" and "64 KiB" in memlock.message and "RDMA NICs" in memlock.message
    assert results["CTR-STACK-ULIMIT"].status == "ok"
    assert all(r.status != "error" for r in results.values())


# --- a HostConfig excerpt whatever key it starts at (gapfix) -----------------------------------


def test_a_quoted_hostconfig_excerpt_without_shm_keys_is_read() -> None:
    # Corpus 141 (apocas/dockerode#811): `> `-quoted, from LogConfig to UsernsMode, IpcMode host, no ShmSize.
    from corpus import corpus_path
    from stackaudit.facts.container_specs import parse_inspect_excerpt

    host = load_pasted([str(corpus_path("141"))])
    results = run_checks(host, ["CTR-SHM-SIZE", "CTR-GPU-ACCESS"])
    assert {k: r.status for k, r in results.items()} == {"CTR-SHM-SIZE": "unknown", "CTR-GPU-ACCESS": "unknown"}
    assert "excerpt" in results["CTR-GPU-ACCESS"].message
    (ctr,) = parse_inspect_excerpt('"NetworkMode": "bridge",\n"IpcMode": "host",\n"PidMode": ""')
    assert ctr.ipc_mode == "host" and ctr.shm_size is None and ctr.excerpt


def test_a_network_settings_excerpt_is_no_hostconfig() -> None:
    # Modelled: NetworkSettings' keys (an inspect cut below HostConfig) name no container setting.
    from stackaudit.facts._parse import ParseError
    from stackaudit.facts.container_specs import parse_inspect_excerpt

    text = '"Bridge": "",\n"SandboxID": "4c1b",\n"Ports": {},\n"IPAddress": "172.17.0.2",\n"MacAddress": "02:42"'
    with pytest.raises(ParseError):
        parse_inspect_excerpt(text)


# --- a pod's env list pasted from one of its items (gapfix) ------------------------------------


def test_a_pod_env_fragment_is_read_as_an_excerpt_of_a_pod() -> None:
    # Corpus 137 (vllm-project/vllm#46830): env items at 14 spaces, then the container's `ports:` at 12.
    from corpus import body
    from stackaudit.facts.docker import DockerContainers

    found = recognise(body("137"))
    assert [kind for kind, *_ in found.recognised] == ["k8s pod"]
    (ctr,) = Collector(MemoryHost(found.record)).fact("docker_containers", DockerContainers).containers
    assert ("NCCL_SOCKET_IFNAME", "eth0") in ctr.env
    # A piece of a pod: its volumes are not shown, so no 64 MiB default /dev/shm is concluded.
    assert run_checks(MemoryHost(found.record), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"].status == "unknown"
    # Modelled: the same form at another depth, with nothing after it, is read the same.
    text = "  - name: NCCL_P2P_DISABLE\n    value: \"1\"\n  - name: NCCL_DEBUG\n    value: INFO\n"
    (ctr,) = Collector(MemoryHost(recognise(text).record)).fact("docker_containers", DockerContainers).containers
    assert ctr.env == (("NCCL_P2P_DISABLE", "1"), ("NCCL_DEBUG", "INFO"))


def test_lists_of_names_that_are_no_pod_env_are_left() -> None:
    # Modelled: a CI workflow's steps, and one env item alone: neither is a pod's env list.
    steps = "      - name: Checkout\n        uses: actions/checkout@v4\n      - name: Test\n        run: pytest\n"
    one = "              - name: NCCL_DEBUG\n                value: INFO\n"
    for text in (steps, one):
        assert "k8s pod" not in [kind for kind, *_ in recognise(text).recognised]
