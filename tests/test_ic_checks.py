"""IC checks: issue, pass and trap cases of each (knowledge base, domain IC), on fake hosts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stackaudit.engine.testing import run_checks
from stackaudit.facts.collect_env import COLLECT_ENV_ARGV
from stackaudit.facts.sources import ENGINE_LOG
from stackaudit.facts.topology import NVLINK_ARGV, P2P_ARGV, TOPO_ARGV
from stackaudit.host.memory import MemoryHost, fake_host
from stackaudit.importers.pasted import load_pasted
from test_collect_env_reports import COLLECT_ENV_NEW
from test_logs_parsers import NCCL_MULTI_NODE_IB, VLLM_TP2_P2P_FAIL, VLLM_TP4_PCIE
from test_topology_parsers import (
    B200_GPU2_DOWN,
    H100_NICS,
    HGX_H100,
    L40S_4,
    NVLINK_H100,
    P2P_OK_8,
    P2P_RTX4090,
    RTX4090_2,
    RTXPRO_8,
    _mesh,
    _pcie,
    make_topo,
)

CACHE = "/root/.cache/vllm"


def report_with(models: list[str]) -> str:
    """A new-format collect_env naming the GPU models (the checks' fallback for GPU names)."""
    head, _, _ = COLLECT_ENV_NEW.partition("GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition\n")
    rest = COLLECT_ENV_NEW.split("\nNvidia driver version", 1)[1]
    gpus = "".join(f"GPU {i}: {m}\n" for i, m in enumerate(models))
    body = head + gpus + "\nNvidia driver version" + rest
    return body.replace("CUDA_VISIBLE_DEVICES=0,1\n", "")


def proc_files(pid: int, argv: list[str], env: dict[str, str] | None, ppid: int = 1,
               cpus: str = "0-63") -> dict[str, str]:
    environ = "\0".join(f"{k}={v}" for k, v in (env or {}).items()) + "\0" if env is not None else "\0" * 64
    return {f"/proc/{pid}/cmdline": "\0".join(argv) + "\0", f"/proc/{pid}/environ": environ,
            f"/proc/{pid}/stat": f"{pid} ({argv[0][-15:]}) S {ppid} {pid} {pid} 0 -1 4194560",
            f"/proc/{pid}/status": f"Name:\t{argv[0][-15:]}\nPid:\t{pid}\nCpus_allowed_list:\t{cpus}\n"
            "Mems_allowed_list:\t0-1\n"}


def vllm(tp: int, env: dict[str, str] | None = None, extra: tuple[str, ...] = (), workers: dict[int, str] | None = None
         ) -> dict[str, str]:
    """A `vllm serve` API server (pid 4100) and titled workers (pid 4101+, CPU list per worker)."""
    argv = ["/usr/bin/python3", "/usr/local/bin/vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", str(tp),
            *extra]
    files = proc_files(4100, argv, {"HOME": "/root", "PATH": "/usr/bin", **(env or {})})
    for rank, cpus in (workers or {}).items():
        files.update(proc_files(4101 + rank, [f"VLLM::Worker_TP{rank}"], None, ppid=4100, cpus=cpus))
    return files


def host(topo: str | None = None, p2p: str | None = None, files: dict[str, str] | None = None,
         dirs: dict[str, list[str]] | None = None, models: list[str] | None = None,
         extra_commands: dict[Any, str] | None = None, log: str | None = None) -> MemoryHost:
    commands: dict[Any, str] = dict(extra_commands or {})
    if topo is not None:
        commands[TOPO_ARGV] = topo
    if p2p is not None:
        commands[P2P_ARGV] = p2p
    if models is not None:
        commands[COLLECT_ENV_ARGV] = report_with(models)
    return fake_host(files=files or {}, commands=commands, dirs=dirs,
                     docs={ENGINE_LOG.name: log} if log is not None else None)


def one(h: MemoryHost, check_id: str) -> Any:
    return run_checks(h, [check_id])[check_id]


H100 = ["NVIDIA H100 80GB HBM3"] * 8
RTXPRO = ["NVIDIA RTX PRO 6000 Blackwell Server Edition"] * 8
RTX4090 = ["NVIDIA GeForce RTX 4090"] * 2

# --- IC-TOPO-READ ----------------------------------------------------------------------------


def test_topo_read_gpu_without_nvlink_on_hgx_is_an_issue() -> None:
    r = one(host(B200_GPU2_DOWN), "IC-TOPO-READ")
    assert r.status == "issue" and r.severity == "high" and r.subjects == ("GPU2",)
    assert "NV18" in r.message and r.evidence and r.evidence[0].startswith("GPU2")


def test_topo_read_nvlink_expected_but_pcie_only() -> None:
    r = one(host(make_topo(_pcie(8, lambda i, j: "NODE" if i // 4 == j // 4 else "SYS"), ["0-47"] * 8, ["0"] * 8),
                 models=H100), "IC-TOPO-READ")
    assert r.status == "issue" and "H100 SXM" in r.message and "fabric" in r.message


def test_topo_read_healthy_hgx_and_pcie_box_are_ok() -> None:
    r = one(host(HGX_H100, P2P_OK_8, models=H100, extra_commands={NVLINK_ARGV: NVLINK_H100}), "IC-TOPO-READ")
    assert r.status == "ok" and "fully NVLink-connected (NV18)" in r.message
    r = one(host(RTXPRO_8, P2P_OK_8, models=RTXPRO), "IC-TOPO-READ")
    assert r.status == "ok" and "PCIe only" in r.message and "NUMA nodes 0, 1" in r.message


def test_topo_read_geforce_ns_is_not_an_issue() -> None:
    r = one(host(RTX4090_2, P2P_RTX4090, models=RTX4090), "IC-TOPO-READ")
    assert r.status == "not-an-issue" and "policy" in r.message
    r = one(host(RTX4090_2, P2P_RTX4090, models=["NVIDIA L40S"] * 2), "IC-TOPO-READ")
    assert r.status == "issue" and r.severity == "medium"


def test_topo_read_one_gpu_or_missing() -> None:
    assert one(host(make_topo([["X"]], ["0-7"], ["0"])), "IC-TOPO-READ").status == "not-applicable"
    assert one(host(), "IC-TOPO-READ").status == "unknown"


P2P_CNS_2 = P2P_RTX4090.replace("NS", "CNS").replace("CCNS", "CNS")


def test_cns_is_normal_on_l4_but_not_on_l40s() -> None:
    """KB IC-TOPO-READ: `CNS` between two L4s is normal; the L40S (gpus.toml p2p = true) is no L4."""
    l4 = one(host(RTX4090_2, P2P_CNS_2, models=["NVIDIA L4"] * 2), "IC-TOPO-READ")
    assert l4.status == "not-an-issue" and "CNS" in l4.message
    l40s = one(host(RTX4090_2, P2P_CNS_2, models=["NVIDIA L40S"] * 2), "IC-TOPO-READ")
    assert l40s.status == "issue" and "CNS" in l40s.message


# --- IC-P2P-FUNCTIONAL -----------------------------------------------------------------------


def _cache(entries: dict[str, bool]) -> dict[str, str]:
    import json
    return {f"{CACHE}/gpu_p2p_access_cache_for_0,1.json": json.dumps(entries)}


def test_p2p_probe_false_while_driver_says_ok_is_an_issue() -> None:
    files = _cache({"0->0": True, "0->1": False, "1->0": False, "1->1": True})
    r = one(host(RTXPRO_8, P2P_OK_8, files=files), "IC-P2P-FUNCTIONAL")
    assert r.status == "issue" and "0->1" in r.message and "driver reports P2P OK" in r.message
    assert r.priority == "P0" and "gpu_p2p_access_cache_for_" in r.fix.runtime


def test_p2p_probe_passed_is_ok_and_no_probe_is_unknown() -> None:
    files = _cache({"0->0": True, "0->1": True, "1->0": True, "1->1": True})
    assert one(host(RTXPRO_8, P2P_OK_8, files=files), "IC-P2P-FUNCTIONAL").status == "ok"
    r = one(host(RTXPRO_8, P2P_OK_8), "IC-P2P-FUNCTIONAL")
    # No vLLM in this source: the unknown names the missing data test, not vLLM's probe default.
    assert r.status == "unknown" and "no data test" in r.message and "VLLM" not in r.message and "nvbandwidth" in r.hint


def test_p2p_nvlink_is_not_applicable_and_log_failure_is_an_issue() -> None:
    assert one(host(HGX_H100), "IC-P2P-FUNCTIONAL").status == "not-applicable"
    r = one(host(RTXPRO_8, P2P_OK_8, log=VLLM_TP2_P2P_FAIL), "IC-P2P-FUNCTIONAL")
    assert r.status == "issue" and "P2P test failed" in r.message


def test_p2p_cache_of_another_user_does_not_speak_for_the_running_engine() -> None:
    """The engine (HOME=/home/svc) has a clean cache; root's stale `false` is not the engine's."""
    import json
    stale = {"0->0": True, "0->1": False, "1->0": False, "1->1": True}
    good = {"0->0": True, "0->1": True, "1->0": True, "1->1": True}
    files = {**vllm(2, env={"HOME": "/home/svc"}),
             f"{CACHE}/gpu_p2p_access_cache_for_0,1.json": json.dumps(stale),
             "/home/svc/.cache/vllm/gpu_p2p_access_cache_for_0,1.json": json.dumps(good)}
    r = one(host(RTXPRO_8, P2P_OK_8, files=files), "IC-P2P-FUNCTIONAL")
    assert r.status == "ok" and "/home/svc/.cache/vllm" in r.message
    # Where no engine runs, root's cache is still read (and its stale `false` reported).
    del files["/proc/4100/cmdline"]
    r = one(host(RTXPRO_8, P2P_OK_8, files=files), "IC-P2P-FUNCTIONAL")
    assert r.status == "issue" and CACHE in str(r.subjects)


# --- IC-CUSTOM-ALLREDUCE ---------------------------------------------------------------------


def test_custom_ar_off_on_pcie_tp4_is_the_key_negative_result() -> None:
    r = one(host(RTXPRO_8, files=vllm(4)), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "not-an-issue" and "by design" in r.message and "TP=4" in r.message
    r = one(host(RTXPRO_8, log=VLLM_TP4_PCIE), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "not-an-issue" and r.evidence


def test_custom_ar_disabled_on_nvlink_is_an_issue() -> None:
    r = one(host(HGX_H100, log=VLLM_TP4_PCIE), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "issue" and r.severity == "high" and "NVLink" in r.message


def test_custom_ar_on_nvlink_is_ok_and_flag_on_nvlink_is_an_issue() -> None:
    assert one(host(HGX_H100, files=vllm(8)), "IC-CUSTOM-ALLREDUCE").status == "ok"
    r = one(host(HGX_H100, files=vllm(8, extra=("--disable-custom-all-reduce",))), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "issue" and r.severity == "medium"
    # vLLM's parser also takes the underscore spelling.
    r = one(host(HGX_H100, files=vllm(8, extra=("--disable_custom_all_reduce",))), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "issue" and r.severity == "medium"


def test_sglang_on_geforce_without_p2p_check_is_an_issue() -> None:
    argv = ["/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
    r = one(host(RTX4090_2, models=RTX4090, files=proc_files(5000, argv, {"HOME": "/root"})), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "issue" and "--enable-p2p-check" in r.message
    r = one(host(RTX4090_2, models=RTX4090, files=proc_files(5000, [*argv, "--disable-custom-all-reduce"],
                                                             {"HOME": "/root"})), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "ok"


# --- IC-NVIDIA-PEERMEM -----------------------------------------------------------------------

LSMOD = "nvidia_uvm 1794048 4 - Live 0x0\nnvidia 60071936 58 nvidia_uvm, Live 0x0\n"


def test_peermem_missing_without_rdma_nic_is_not_an_issue() -> None:
    r = one(host(files={"/proc/modules": LSMOD}), "IC-NVIDIA-PEERMEM")
    assert r.status == "not-an-issue" and "never uses it" in r.message


def test_peermem_missing_where_nccl_uses_ib_without_gdr_is_an_issue() -> None:
    log = NCCL_MULTI_NODE_IB.replace("/GDRDMA", "")
    r = one(host(files={"/proc/modules": LSMOD}, log=log, dirs={"/sys/class/infiniband": ["mlx5_0"]}),
            "IC-NVIDIA-PEERMEM")
    assert r.status == "issue" and r.subjects == ("mlx5_0",) and "modprobe nvidia-peermem" in r.fix.runtime


def test_peermem_loaded_is_ok_and_gdr_via_dmabuf_is_ok() -> None:
    r = one(host(files={"/proc/modules": LSMOD + "nvidia_peermem 16384 0 - Live 0x0\n"}), "IC-NVIDIA-PEERMEM")
    assert r.status == "ok"
    r = one(host(files={"/proc/modules": LSMOD}, log=NCCL_MULTI_NODE_IB,
                 dirs={"/sys/class/infiniband": ["mlx5_0"]}), "IC-NVIDIA-PEERMEM")
    assert r.status == "ok" and "DMA-BUF" in r.message


def test_a_peer_memory_modules_callback_lines_show_it_loaded_and_serving_rdma(tmp_path) -> None:
    """Corpus 2428 (Mellanox/nv_peer_memory#111: `nv_mem nv_get_p2p_free_callback` lines, kernel 5.4) and 195 (gpud's
    documentation: nvidia-peermem's free callback beside Xids): the module's own callback lines show it loaded and
    an RDMA NIC registering GPU memory through it; a modelled log naming the module only in its load line does not."""
    from corpus import capture_checks, paste_checks

    for prefix, module in (("2428", "nv_peer_mem"), ("195", "nvidia_peermem")):
        results = capture_checks(prefix, "IC-NVIDIA-PEERMEM", "KVER-DMABUF")
        assert results["IC-NVIDIA-PEERMEM"].status == "ok" and module in results["IC-NVIDIA-PEERMEM"].message, prefix
        assert results["KVER-DMABUF"].status == "ok" and module in results["KVER-DMABUF"].message, prefix
    loaded = ("[   12.345678] nvidia_peermem: module verification failed: signature and/or required key missing - "
              "tainting kernel\n[   13.000001] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n")
    results = paste_checks(tmp_path, loaded, "IC-NVIDIA-PEERMEM", "KVER-DMABUF")
    assert results["IC-NVIDIA-PEERMEM"].status == "unknown" and results["KVER-DMABUF"].status == "unknown"


def test_a_peer_memory_module_loaded_in_the_users_words(tmp_path) -> None:
    """Corpus 2434 (NVIDIA/nccl#214: runs fail `with `nv_peer_mem` kernel module loaded`, NCCL_IB_HCA on mlx5_*) and
    566 (`i have loaded nvidia_peermem module`): the user's words say the module is loaded. Modelled: the same
    sentence saying it is not loaded, or asking whether it is, says nothing."""
    from corpus import capture_checks, paste_checks
    from stackaudit.facts.system import stated_peer_memory_loaded

    r = capture_checks("2434", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert r.status == "ok" and "nv_peer_mem is loaded" in r.message, r.message
    assert stated_peer_memory_loaded("I note that i have loaded nvidia_peermem module , versions look like, this.") \
        == "nvidia_peermem"
    hca = "\n```bash\nmpirun -np 16 -x NCCL_IB_HCA=mlx5_0,mlx5_2 ./build/all_reduce_perf -b 16M -e 1G -f 2 -g 1\n```\n"
    for words in ("These errors go away when the `nv_peer_mem` kernel module is not loaded.",
                  "Do these errors need the `nv_peer_mem` kernel module loaded?"):
        assert stated_peer_memory_loaded(words) == ""
        r = paste_checks(tmp_path, words + hca, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
        assert r.status == "unknown", (words, r.message)


# --- IC-NCCL-ENV -----------------------------------------------------------------------------


def test_p2p_disable_in_engine_env_on_nvlink_is_p0() -> None:
    r = one(host(HGX_H100, files=vllm(8, env={"NCCL_P2P_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "high" and r.priority == "P0" and r.fix.cost == "restart"
    assert "NCCL_P2P_DISABLE" in r.subjects and "environment" in r.message


def test_p2p_disable_in_nccl_conf_on_nvlink_is_p0() -> None:
    r = one(host(HGX_H100, files={**vllm(8), "/etc/nccl.conf": "NCCL_P2P_DISABLE=1\n"}), "IC-NCCL-ENV")
    assert r.status == "issue" and r.priority == "P0" and "/etc/nccl.conf" in r.message


def test_ib_disable_on_one_host_is_not_an_issue_and_clean_env_is_ok() -> None:
    r = one(host(HGX_H100, files=vllm(8, env={"NCCL_IB_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "one host" in r.message
    assert one(host(HGX_H100, files=vllm(8)), "IC-NCCL-ENV").status == "ok"


def test_p2p_disable_on_geforce_is_not_an_issue_and_shm_disable_with_p2p_off_is_high() -> None:
    r = one(host(RTX4090_2, P2P_RTX4090, models=RTX4090, files=vllm(2, env={"NCCL_P2P_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "not-an-issue"
    r = one(host(RTXPRO_8, P2P_OK_8, files=vllm(4, env={"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"})),
            "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "high" and "sockets" in r.message


def test_unreadable_engine_env_with_a_clean_nccl_conf_is_unknown_not_ok() -> None:
    """A blind read of the engine's environment is `unknown`, even when /etc/nccl.conf was readable."""
    files = {**vllm(8), "/etc/nccl.conf": "# site defaults\nNCCL_DEBUG=WARN\n",
             "/proc/4100/environ": PermissionError(13, "Permission denied")}
    r = one(host(HGX_H100, files=files), "IC-NCCL-ENV")
    assert r.status == "unknown" and "could not be read" in r.message and "root" in r.hint
    files["/proc/4100/environ"] = "HOME=/root\0PATH=/usr/bin\0"
    # NCCL_DEBUG=WARN only sets NCCL's logging: ok (a logging switch turns no transport off).
    assert one(host(HGX_H100, files=files), "IC-NCCL-ENV").status == "ok"
    # Modelled: a setting beside it that disables nothing is a key negative (a set NCCL variable is what a reader
    # suspects first).
    files["/etc/nccl.conf"] = "# site defaults\nNCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME=eth0\n"
    assert one(host(HGX_H100, files=files), "IC-NCCL-ENV").status == "not-an-issue"


def test_ib_disable_on_a_ray_multi_node_engine_is_an_issue() -> None:
    """NCCL lines behind Ray's `(RayWorkerWrapper pid=…, ip=…)` prefix still name two hosts."""
    log = ("(RayWorkerWrapper pid=5120, ip=10.0.0.11) node-a:5120:5301 [0] NCCL INFO NCCL_IB_DISABLE set by "
           "environment to 1.\n"
           "(RayWorkerWrapper pid=7311, ip=10.0.0.12) node-b:7311:7490 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] "
           "[send] via NET/Socket/0\n")
    r = one(host(HGX_H100, log=log), "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "medium" and "multi-node" in r.message


# --- IC-TOPOLOGY-PLACEMENT -------------------------------------------------------------------


def test_tp_group_across_sockets_while_a_switch_pair_exists() -> None:
    r = one(host(RTXPRO_8, files=vllm(2, env={"CUDA_VISIBLE_DEVICES": "3,4"})), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "issue" and set(r.subjects) == {"GPU3", "GPU4"} and r.expected == "CUDA_VISIBLE_DEVICES=0,1"


def test_tp_using_all_gpus_is_not_an_issue_and_an_nvlink_mesh_is_ok() -> None:
    r = one(host(RTXPRO_8, files=vllm(8)), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "not-an-issue" and "unavoidable" in r.message
    # Every pair NVLinked: any group meets over NVLink, a placement that is fine (issue 28: ok, as corpus 220's).
    r = one(host(HGX_H100, files=vllm(4)), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "ok" and "placement does not matter" in r.message
    r = one(host(RTXPRO_8, files=vllm(2, env={"CUDA_VISIBLE_DEVICES": "0,1"})), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "ok"


def test_no_engine_and_every_pair_sys_ranks_no_group() -> None:
    """Real: corpus 243 (NVIDIA/go-gpuallocator#17, 8 RTX 4090, SYS between every pair, NUMA 0 and 1): unknown, the
    NUMA nodes named. Modelled counter-example: one PHB pair beside SYS pairs is a group to advise, but whether the
    engine took it is not shown (unknown, as corpus 325 wants; with no SYS pair the advice is ok, as 59, 60, 180)."""
    all_sys = make_topo(_pcie(4, lambda i, j: "SYS"), ["0-15"] * 2 + ["16-31"] * 2, ["0"] * 2 + ["1"] * 2)
    r = one(host(all_sys), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "unknown" and "node 0: GPU0, GPU1; node 1: GPU2, GPU3" in r.message
    one_pair = make_topo(_pcie(4, lambda i, j: "PHB" if {i, j} == {0, 1} else "SYS"), ["0-15"] * 4, ["0"] * 4)
    r = one(host(one_pair), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "unknown" and "TP2: 0,1" in r.message


# --- IC-NUMA-AFFINITY ------------------------------------------------------------------------

NODES = {"/sys/devices/system/node/node0/cpulist": "0-31\n", "/sys/devices/system/node/node1/cpulist": "32-63\n"}


def test_worker_bound_to_the_other_node_is_an_issue() -> None:
    files = {**NODES, **vllm(2, env={"CUDA_VISIBLE_DEVICES": "0,1"}, workers={0: "32-63", 1: "0-31"})}
    r = one(host(L40S_4, files=files), "IC-NUMA-AFFINITY")
    assert r.status == "issue" and "GPU0 on node 0" in r.message


def test_unbound_workers_are_ok_and_no_engine_is_not_applicable() -> None:
    files = {**NODES, **vllm(2, workers={0: "0-63", 1: "0-63"})}
    r = one(host(L40S_4, files=files), "IC-NUMA-AFFINITY")
    assert r.status == "ok" and "not bound" in r.message
    init = proc_files(1, ["/sbin/init"], {})
    assert one(host(L40S_4, files={**NODES, **init}), "IC-NUMA-AFFINITY").status == "not-applicable"
    assert one(host(L40S_4, files=NODES), "IC-NUMA-AFFINITY").status == "unknown"  # no /proc in the source


# --- IC-NIC-GPU-AFFINITY ---------------------------------------------------------------------


def test_nic_placement_single_node_is_not_applicable_and_multi_node_ok() -> None:
    assert one(host(HGX_H100, files=vllm(8)), "IC-NIC-GPU-AFFINITY").status == "not-applicable"
    r = one(host(HGX_H100, files=vllm(8, extra=("--nnodes", "2", "--node-rank", "0"))), "IC-NIC-GPU-AFFINITY")
    assert r.status == "ok" and "PXB" in r.message


def test_gpu_without_near_nic_on_multi_node_is_an_issue() -> None:
    nic_cells = [["PXB" if g < 2 else ("NODE" if g < 4 else "SYS") for g in range(8)]]
    topo = make_topo(_mesh(8, "NV18"), ["0-47"] * 4 + ["48-95"] * 4, ["0"] * 4 + ["1"] * 4, H100_NICS[:1], nic_cells)
    r = one(host(topo, log=NCCL_MULTI_NODE_IB), "IC-NIC-GPU-AFFINITY")
    assert r.status == "issue" and "GPU7" in r.subjects and "GPU0" not in r.subjects


def test_near_nics_without_an_engine_are_ok_and_a_far_one_stays_unknown() -> None:
    """Near NICs for every GPU are right whatever traffic the host carries (real pastes: corpus 173, 200, 220, 236,
    242); a NIC near some GPUs and far from the others is the placement itself, read from the same columns (corpus
    335, test_rule_nic_affinity_evidence); a NIC far from every GPU may serve storage, so it stays unknown (modelled)."""
    r = one(host(HGX_H100), "IC-NIC-GPU-AFFINITY")
    assert r.status == "ok" and r.coverage.text() == "8 of 8 GPUs shown" and "GPU7→NIC3 (mlx5_3) PXB" in r.message
    nic_cells = [["PXB" if g < 2 else ("NODE" if g < 4 else "SYS") for g in range(8)]]
    topo = make_topo(_mesh(8, "NV18"), ["0-47"] * 4 + ["48-95"] * 4, ["0"] * 4 + ["1"] * 4, H100_NICS[:1], nic_cells)
    assert one(host(topo), "IC-NIC-GPU-AFFINITY").status == "issue"
    far_cells = [["NODE" if g < 4 else "SYS" for g in range(8)]]
    topo = make_topo(_mesh(8, "NV18"), ["0-47"] * 4 + ["48-95"] * 4, ["0"] * 4 + ["1"] * 4, H100_NICS[:1], far_cells)
    assert one(host(topo), "IC-NIC-GPU-AFFINITY").status == "unknown"


def test_gpu_rows_a_cut_matrix_leaves_out_are_not_far_from_their_nic() -> None:
    """Rows cut after GPU1 (as corpus 200): the GPUs not shown are neither near nor far; on multi-node serving the
    shown ones are judged, with the coverage."""
    cut = "\n".join(HGX_H100.splitlines()[:3])
    r = one(host(cut, log=NCCL_MULTI_NODE_IB), "IC-NIC-GPU-AFFINITY")
    assert r.status == "ok" and r.coverage.text() == "2 of 8 GPUs shown" and not r.subjects


def test_a_single_rank_communicator_needs_no_nic() -> None:
    """`nranks 1` (corpus 256, NVIDIA/nccl#1238's `[nranks=1]` trace): no traffic between ranks; a log whose other
    communicator has four ranks (NVIDIA/nccl#1352) is not single-rank."""
    one_rank = ("::16674:17023 [0] NCCL INFO comm 0x5640f24752d0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 100000 "
                "commId 0x2064c00fc2f91516 - Init START\n")
    assert one(host(log=one_rank), "IC-NIC-GPU-AFFINITY").status == "not-applicable"
    trace = ("ip-172-31-54-74:30125:30125 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7fc9c4000000 recvbuff "
             "0x7fc9bc000000 count 33554432 datatype 7 op 0 root 0 comm 0x5631f0816b40 [nranks=1] stream "
             "0x5631f0021140\n")
    assert one(host(log=trace), "IC-NIC-GPU-AFFINITY").status == "not-applicable"
    four = ("srv01:2016601:2016601 [0] NCCL INFO [2] AllReduce: opCount e sendbuff 0x7fc0626a1c00 recvbuff "
            "0x7fc0626a1c00 count 1 datatype 1 op 0 root 0 comm 0x5558715599c0 [nranks=4] stream 0x555870f12040\n")
    assert one(host(log=trace + four), "IC-NIC-GPU-AFFINITY").status != "not-applicable"


def test_p2p_iommu_fault_naming_a_gpu_is_an_issue() -> None:
    """A DMAR fault on a GPU's BDF means peer writes are blocked or dropped, whatever the driver says."""
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    for n, bdf in enumerate(("0000:41:00.0", "0000:c1:00.0")):
        real = f"/sys/devices/pci0000:{n}0/0000:{n}0:01.1/{bdf}"
        links[f"/sys/bus/pci/devices/{bdf}"] = f"../../..{real[4:]}"
        files.update({f"{real}/vendor": "0x10de\n", f"{real}/device": "0x2bb5\n", f"{real}/class": "0x030200\n"})
    dmesg = ("[ 5123.445] DMAR: [DMA Write NO_PASID] Request device [c1:00.0] fault addr 0x3800000000 "
             "[fault reason 0x71] SM: Present bit in first-level paging entry is clear\n")
    h = fake_host(files=files, links=links, commands={TOPO_ARGV: RTXPRO_8, P2P_ARGV: P2P_OK_8, ("dmesg",): dmesg})
    r = one(h, "IC-P2P-FUNCTIONAL")
    assert r.status == "issue" and "IOMMU faults" in r.message and "c1:00.0" in r.evidence[0]
    clean = fake_host(files=files, links=links, commands={TOPO_ARGV: RTXPRO_8, P2P_ARGV: P2P_OK_8, ("dmesg",): ""})
    assert one(clean, "IC-P2P-FUNCTIONAL").status != "issue"


def test_custom_ar_at_tp2_on_pcie_is_ok_only_where_the_pair_is_shown_with_p2p() -> None:
    """Custom all-reduce runs on a PCIe pair only where P2P works between them: with the driver's P2P table it is
    ok, without one the source does not show it (issue 28: no ok from what the source does not show)."""
    r = one(host(RTXPRO_8, files=vllm(2)), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "unknown" and "does not show" in r.message and "topo -p2p" in r.hint
    r = one(host(RTXPRO_8, P2P_OK_8, files=vllm(2)), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "ok" and "gives P2P" in r.message
    # Corpus 677 (two PCIe L20s, `vllm serve --tensor-parallel-size 2`, no topology or P2P table): unknown.
    from corpus import corpus_path

    r = run_checks(load_pasted([str(corpus_path("677"))]), ["IC-CUSTOM-ALLREDUCE"])["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "unknown" and "TP=2 on PCIe" in r.message


def test_ib_disable_across_nodes_is_conditional_on_rdma_nics(tmp_path) -> None:
    """Corpus 1095 (NVIDIA/nccl-tests#284): NCCL_IB_DISABLE=1 on two hosts joined by plain Ethernet; no RDMA NIC is
    shown, so the cost is named as a condition. The same log with the HCAs named (modelled) is the issue."""
    from corpus import capture_checks, paste_checks

    plain = capture_checks("1095", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert plain.status == "unknown" and "no RDMA NIC is in this source" in plain.message
    body = next((Path(__file__).parent / "data" / "captures").glob("1095-*.txt")).read_text()
    log = body.split("everything below this line is the capture, verbatim -----\n", 1)[1]
    named = log + "agzen-worker:475220:475228 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0.\n"
    r = paste_checks(tmp_path, named, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_IB_HCA=mlx5_0" in r.message


def test_placement_and_one_node_numa_are_judged_over_the_matrix_gpus() -> None:
    from corpus import capture_checks

    # Corpus 860 (no engine: the best groups), 641 (TP over every GPU) and 722 (every GPU on NUMA node 0): a verdict
    # read from a whole matrix covers its GPUs, `K of K GPUs shown`.
    for prefix, cid, text in (("860", "IC-TOPOLOGY-PLACEMENT", "2 of 2 GPUs shown"),
                              ("641", "IC-TOPOLOGY-PLACEMENT", "2 of 2 GPUs shown"),
                              ("722", "IC-NUMA-AFFINITY", "4 of 4 GPUs shown")):
        result = capture_checks(prefix, cid)[cid]
        assert result.status == "ok" and result.coverage is not None, (prefix, result.message)
        assert result.coverage.text() == text, (prefix, result.coverage.text())


def test_custom_allreduce_on_nvlink_covers_the_gpus_read_as_nvlinked() -> None:
    from corpus import capture_checks

    # Corpus 760: SGLang TP=8 on eight H100s: the ok covers the eight GPUs.
    result = capture_checks("760", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert result.status == "ok" and result.coverage is not None and result.coverage.text() == "8 of 8 GPUs shown"
