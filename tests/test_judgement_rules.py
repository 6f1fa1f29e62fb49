"""Judgement rules of issue 10, one test per rule: priorities, myth corrections, product-aware topology,
lost GPUs. Real outputs from the corpus (tests/data/captures) where one exists; the fake hosts built from
tests/test_topology_parsers.py and tests/test_ic_checks.py are modelled on real outputs (marked there)."""

from __future__ import annotations

import pytest

from corpus import load_corpus
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted
from test_ic_checks import host, one, vllm
from test_topology_parsers import HGX_H100, P2P_OK_8, RTXPRO_8, make_topo


def corpus_result(prefix: str, check_id: str):  # type: ignore[no-untyped-def]
    """The result of one check on the corpus capture whose file name starts with `prefix`."""
    entry = next(e for e in load_corpus() if e.path.name.startswith(prefix))
    return run_checks(load_pasted([str(entry.path)]), [check_id])[check_id]


# --- IC-NCCL-ENV severities per variable and topology (knowledge base IC-NCCL-ENV) -------------


def test_p2p_disable_is_high_on_pcie_where_p2p_works() -> None:
    r = one(host(RTXPRO_8, P2P_OK_8, files=vllm(4, env={"NCCL_P2P_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "high" and "P2P OK" in r.message


def test_p2p_disable_on_pcie_with_p2p_unknown_is_medium_and_asks_for_a_benchmark() -> None:
    r = one(host(RTXPRO_8, files=vllm(4, env={"NCCL_P2P_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "medium" and r.priority == "P1"
    assert "benchmark" in r.message


def test_p2p_level_loc_with_one_rank_per_node_is_not_an_issue_on_the_real_log() -> None:
    # Corpus 57: a 3-node NCCL log, `localRanks 1` on each node, NCCL_P2P_LEVEL=LOC set by environment.
    r = corpus_result("57-", "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "localRanks 1" in r.message


def test_shm_disable_with_p2p_level_loc_is_high_on_the_real_log() -> None:
    # Corpus 55: NCCL_P2P_LEVEL=LOC and NCCL_SHM_DISABLE=1 on two NVLink A100s.
    r = corpus_result("55-", "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "high" and "with P2P off" in r.message


def test_ib_disable_matters_only_where_nics_next_to_gpus_could_carry_their_traffic() -> None:
    # Two PCIe GPUs across sockets (SYS), each with a ConnectX next to it (PIX): NET/IB could carry the pair.
    topo = make_topo([["X", "SYS"], ["SYS", "X"]], ["0-31", "32-63"], ["0", "1"], ["mlx5_0", "mlx5_1"],
                     [["PIX", "SYS"], ["SYS", "PIX"]])
    r = one(host(topo, files=vllm(2, env={"NCCL_IB_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "issue" and r.severity == "low" and "mlx5_0" in r.message
    # The same variable on an NVSwitch board: NVLink beats any NIC, nothing is lost.
    r = one(host(HGX_H100, files=vllm(8, env={"NCCL_IB_DISABLE": "1"})), "IC-NCCL-ENV")
    assert r.status == "not-an-issue"


def test_nccl_variables_that_disable_nothing_are_a_key_negative_on_the_real_spec() -> None:
    # Corpus 902: mpirun passes NCCL_SOCKET_IFNAME, NCCL_IB_QPS_PER_CONNECTION and NCCL_DEBUG, none turning a path off.
    r = corpus_result("902-", "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "NCCL_SOCKET_IFNAME=net1" in r.message


@pytest.mark.parametrize("prefix", [
    "822-",  # NVIDIA/nccl#1338: an nccl-tests command with NCCL_DEBUG=INFO alone
    "1764-",  # NVIDIA/nccl-tests#287: the same, on two RTX 5090
    "1902-",  # NVIDIA/TensorRT-LLM#1702: mpirun -x NCCL_DEBUG=INFO for a TP 4 engine
])
def test_nccl_logging_alone_is_ok_on_the_real_runs(prefix: str) -> None:
    r = corpus_result(prefix, "IC-NCCL-ENV")
    assert r.status == "ok" and "logging switches" in r.message and "NCCL_DEBUG=INFO" in r.message


def test_a_variable_nccls_own_warning_names_is_not_logging() -> None:
    # Corpus 1106 (NVIDIA/nccl-tests#115): NCCL_DEBUG=INFO on the command line, and cudawrap's WARN names
    # NCCL_CUDA_PATH's value: a setting beside the logging, which disables nothing (a key negative).
    r = corpus_result("1106-", "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "NCCL_CUDA_PATH=/usr/local/cuda-11.7" in r.message


# --- myth corrections: nvidia_peermem --------------------------------------------------------


def test_peermem_without_rdma_nics_is_a_key_negative_where_the_module_is_known() -> None:
    r = one(host(files={"/proc/modules": "nvidia 1 0 - Live 0x0\n"}, dirs={"/sys/class/infiniband": []}),
            "IC-NVIDIA-PEERMEM")
    assert r.status == "not-an-issue" and "RDMA" in r.message


def test_peermem_without_rdma_nics_and_module_not_shown_is_not_applicable_on_the_real_log() -> None:
    # Corpus 56: an NCCL log with `NET/IB : No device found`, no lsmod.
    assert corpus_result("56-", "IC-NVIDIA-PEERMEM").status == "not-applicable"


# --- topology rules that know the product ----------------------------------------------------


def test_gns_in_topo_p2p_is_the_drivers_policy_on_the_real_matrix() -> None:
    # Corpus 59: 2x GeForce RTX 5090, `topo -p2p rw` all GNS.
    r = corpus_result("59-", "IC-TOPO-READ")
    assert r.status == "not-an-issue" and "policy" in r.message
    assert "fabric" not in r.message.replace("no fabric manager", "") and "--disable-custom-all-reduce" in r.message


def test_placement_without_an_engine_gives_the_best_tp_groups_as_subjects() -> None:
    # Two sockets and no engine: whether a TP2/TP4 group crosses them is the engine's choice, not shown (unknown,
    # as blind 325 and 243 want), with the best groups as the advice.
    r = one(host(RTXPRO_8), "IC-TOPOLOGY-PLACEMENT")
    assert r.status == "unknown" and "TP2:" in r.message and "TP4:" in r.message and "TP8:" in r.message
    assert any(s.startswith("TP4: GPU ") for s in r.subjects)
    # Eight GPUs on two sockets: only TP8 has to cross SYS.
    assert "TP8 must cross sockets" in r.message and "TP4 must" not in r.message and "TP4," not in r.message
    groups = r.actual["tp4"]
    assert len(groups) == 2 and sorted(g for grp in groups for g in grp) == sorted(f"GPU{i}" for i in range(8))


# --- myth corrections and product knowledge on real pastes -----------------------------------


def test_torch_cuda_older_than_the_drivers_is_ok_and_says_why() -> None:
    # Corpus 45: driver 550.90.07 (CUDA 12.4) under torch 2.3.1+cu121 (the lead's decision: ok; 45's not-an-issue is a gap).
    r = corpus_result("45-", "DRV-CUDA-COMPAT")
    assert r.status == "ok" and "12.1" in r.message and "12.4" in r.message and "driver's highest" in r.message


def test_proprietary_module_before_r515_is_a_key_negative_and_unknown_without_gpus() -> None:
    # Corpus 76: NVIDIA 285.03 on a GeForce GT 420M (2011): there was no open flavour.
    assert corpus_result("76-", "DRV-OPEN-MODULE").status == "not-an-issue"
    # Corpus 79: the proprietary 535 module, no GPU model in the paste: Blackwell would need the open one.
    assert corpus_result("79-", "DRV-OPEN-MODULE").status == "unknown"


def test_several_numa_nodes_per_socket_are_a_layout_not_a_fault() -> None:
    # Corpus 48: 2x EPYC 7281 (Naples), 8 NUMA nodes.
    r = corpus_result("48-", "FW-NUMA-NPS")
    assert r.status == "not-an-issue" and "layout" in r.message


def test_shm_applies_to_multi_process_engines_only() -> None:
    # Corpus 84: Ollama in compose with Docker's 64 MiB /dev/shm: one process, no TP ranks.
    r = corpus_result("84-", "CTR-SHM-SIZE")
    assert r.status == "not-an-issue" and "one process" in r.message and r.subjects == ("ollama",)
    # Corpus 54: `ipc: host` shares the host's /dev/shm, the documented setting (its size not shown).
    assert corpus_result("54-", "CTR-SHM-SIZE").status == "ok"
    # Corpus 51: a `docker run` with no --shm-size for a multi-GPU job: the issue stands.
    assert corpus_result("51-", "CTR-SHM-SIZE").status == "issue"


# --- no check repeats another's finding with a costlier fix ----------------------------------


def test_acpi_cpufreq_with_a_slow_governor_is_the_governor_finding_only() -> None:
    from test_kern_checks import LSCPU_GENOA, cpufreq_files
    from test_kern_checks import run as kern_run

    files = cpufreq_files(driver="acpi-cpufreq", governor="ondemand", epp=None)
    gov = kern_run("KERN-CPUFREQ-GOVERNOR", files, lscpu=LSCPU_GENOA)
    assert gov.status == "issue" and gov.fix is not None and gov.fix.cost == "runtime"
    pstate = kern_run("KERN-AMD-PSTATE", files, lscpu=LSCPU_GENOA)
    assert pstate.status == "not-an-issue" and "KERN-CPUFREQ-GOVERNOR" in pstate.message


def test_powersave_on_an_active_mode_driver_pinned_to_its_minimum_is_an_issue_on_the_real_paste() -> None:
    # Corpus 81: amd-pstate-epp, powersave, policy 400 MHz - 400 MHz (TLP settings).
    r = corpus_result("81-", "KERN-CPUFREQ-GOVERNOR")
    assert r.status == "issue" and r.severity == "high" and "400 MHz" in r.message
    # The same driver and governor with the full range is the EPP-steered default: a key negative.
    from test_kern_checks import cpufreq_files
    from test_kern_checks import run as kern_run

    files = cpufreq_files(driver="amd-pstate-epp", governor="powersave", epp="balance_performance")
    files["/sys/devices/system/cpu/amd_pstate/status"] = "active\n"
    assert kern_run("KERN-CPUFREQ-GOVERNOR", files).status == "not-an-issue"


# --- lost GPUs and hardware faults ---------------------------------------------------------------


def _xid(dmesg: str):  # type: ignore[no-untyped-def]
    from nvidia_support import hgx, host_for

    return run_checks(host_for(hgx(), dmesg=dmesg), ["DRV-XID", "DRV-NVLINK-HEALTH"])


def test_a_gpu_lost_behind_a_fatal_port_error_is_one_event_on_the_real_log() -> None:
    # Corpus 41: Surprise Down on root port 00:02.0, then Xid 79 of the GPU at 02:00.0.
    r = corpus_result("41-", "FW-AER-ERRORS")
    assert r.status == "issue" and r.priority == "P0"
    assert "0000:00:02.0" in r.message and "0000:02:00.0" in r.message and "Surprise Down" in r.message
    x = corpus_result("41-", "DRV-XID")
    assert x.status == "issue" and x.priority == "P0" and "0000:02:00.0 lost" in x.message


def test_xid_classes_per_gpu_and_application_faults_apart() -> None:
    # Modelled on the catalogue's wording; two GPUs, a degraded one (64, a row-remap failure) and one with
    # application faults. (An ECC Xid 48/94/95 line is MEM-ROW-REMAP-ECC's finding: one line, one finding.)
    dmesg = ("[ 9.1] NVRM: Xid (PCI:0000:18:00): 64, pid=4101, name=python3, Row Remapper Error\n"
             "[ 9.2] NVRM: Xid (PCI:0000:2a:00): 13, pid=4102, name=python3, Graphics SM Warp Exception\n")
    r = _xid(dmesg)["DRV-XID"]
    assert r.status == "issue" and r.priority == "P0" and r.subjects == ("0000:18:00.0",)
    assert r.message.startswith("GPU 0000:18:00.0 degraded — Xid 64")
    assert r.evidence[0].startswith("[ 9.1] NVRM: Xid (PCI:0000:18:00): 64")
    assert "also application faults (information): GPU 0000:2a:00.0: Xid 13" in r.message
    contained = _xid("[ 9.1] NVRM: Xid (PCI:0000:18:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: "
                     "New row marked for remapping, reset gpu to activate.\n")["DRV-XID"]
    assert contained.status == "issue" and contained.severity == "medium" and contained.priority == "P1"


def test_rate_limited_xids_are_counted() -> None:
    # Modelled: the kernel's rate limit folds repeats into "<name>: N callbacks suppressed".
    dmesg = ("[ 9.1] NVRM: Xid (PCI:0000:18:00): 63, pid=7194, name=python3, Row Remapper: New row marked for "
             "remapping, reset gpu to activate.\n"
             "[ 9.2] _nv012345rm: 41 callbacks suppressed\n")
    r = _xid(dmesg)["DRV-XID"]
    assert "Xid 63 ×42" in r.message and r.actual == {"0000:18:00.0 xid 63": 42}


def test_the_recovery_action_comes_from_xid_154() -> None:
    # Verbatim lines from https://forums.developer.nvidia.com/t/xid-62-xid-154-gsp-pmu-halt-crash-on-rtx-pro-6000-
    # blackwell-during-llm-inference/364958 (RTX PRO 6000 Blackwell, driver 595.58.03).
    dmesg = ("Mar 29 15:38:59 kernel: NVRM: Xid (PCI:0000:01:00): 120, GSP kernel exception: store access page fault "
             "(cause:0xf) @ pc:0xffffffff93003d42, partition:4#0\n"
             "Mar 29 15:38:59 kernel: NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) "
             "to 0x1 (GPU Reset Required)\n")
    r = _xid(dmesg)["DRV-XID"]
    assert r.status == "issue" and r.priority == "P0" and "GPU 0000:01:00.0 lost — Xid 120" in r.message
    assert "recovery action: 0000:01:00.0 GPU Reset Required" in r.message
    # The driver asks for a GPU reset, not the reboot a lost GPU's class would guess.
    assert r.fix_cost == "driver-reload"


def test_nvlink_xids_feed_nvlink_health() -> None:
    # Modelled on the NVLink Xid lines of NVIDIA/open-gpu-kernel-modules#1150 (Xid 145 on an NVLink5 system).
    r = _xid("[ 9.1] NVRM: Xid (PCI:0000:18:00): 145, NVLink: RLW error\n")["DRV-NVLINK-HEALTH"]
    assert r.status == "issue" and "Xid 145" in r.message and r.subjects == ("0000:18:00.0",)


def test_links_an_elided_listing_does_not_show_are_not_links_down_on_the_real_paste() -> None:
    # Corpus 62: GB200 `nvlink -s`, cut with '...' after GPU 1's second link: GPU 1 is not shown, never down; GPU 0's
    # whole listing decides (the coverage rule, test_rule_nvlink_counts).
    r = corpus_result("62-", "DRV-NVLINK-HEALTH")
    assert r.status == "ok" and "GPU 1" in r.message and r.coverage.blind == ("GPU 1",)
    # The same GPU with two links explicitly <inactive> is an issue.
    v100 = corpus_result("61-", "DRV-NVLINK-HEALTH")
    assert v100.status == "issue" and "down: 3,5" in v100.message


# --- priorities of shared GPUs and power caps ----------------------------------------------------


def test_a_display_server_alone_is_p2_and_another_programs_engine_p1() -> None:
    from nvidia_support import host_for, pcie_box
    from test_mem_checks import vllm_files

    files, procs = vllm_files("--tensor-parallel-size 2", workers=2)
    gpus = pcie_box("NVIDIA GeForce RTX 4090", 2)
    gpus[0]["processes"] = {"compute": [{"pid": 4111, "used_memory": 21 * 2**30, "name": "VLLM::Worker_TP0"}],
                            "graphics": [{"pid": 900, "used_memory": 200 * 2**20, "name": "/usr/lib/xorg/Xorg"}]}
    gpus[1]["processes"] = {"compute": [{"pid": 4112, "used_memory": 21 * 2**30, "name": "VLLM::Worker_TP1"}],
                            "graphics": []}
    shown = {**procs, 900: "/usr/lib/xorg/Xorg vt1"}
    r = run_checks(host_for(gpus, extra_files=files, processes=shown), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "issue" and r.priority == "P2" and "display" in r.message and "pid 900" not in r.message
    gpus[1]["processes"]["compute"].append({"pid": 7300, "used_memory": 30 * 2**30, "name": "ollama"})
    shown[7300] = "ollama serve"
    r = run_checks(host_for(gpus, extra_files=files, processes=shown), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "issue" and r.priority == "P1" and "pid 7300" in r.message


def test_a_power_cap_is_p1_unless_deliberate() -> None:
    from nvidia_support import hgx, host_for

    gpus = hgx(count=2)
    gpus[1]["power"] = {**gpus[1]["power"], "limit_mw": 500000, "enforced_mw": 500000}
    r = run_checks(host_for(gpus), ["PWR-GPU-POWER-LIMIT"])["PWR-GPU-POWER-LIMIT"]
    assert r.status == "issue" and r.priority == "P1" and "unless deliberate" in r.message and "waive" in r.message


def _nvl_pair_and_one() -> str:
    # Modelled on `topo -m` of an H100 NVL box: GPU0-GPU1 bridged (NV12), GPU2 alone on the same socket.
    cells = [["X", "NV12", "NODE"], ["NV12", "X", "NODE"], ["NODE", "NODE", "X"]]
    return make_topo(cells, ["0-31"] * 3, ["0"] * 3)


def test_bridge_products_pair_gpus_by_design() -> None:
    r = one(host(_nvl_pair_and_one(), models=["NVIDIA H100 NVL"] * 3), "IC-TOPO-READ")
    assert r.status == "not-an-issue" and "by design" in r.message and "GPU0-GPU1" in r.message
    assert "Fabric" not in r.message and "down" not in r.message
    # Models not in the source: a pair beside an unpaired GPU may be either; never "links down" from that.
    assert one(host(_nvl_pair_and_one()), "IC-TOPO-READ").status == "unknown"


def test_links_down_and_fabric_manager_only_on_nvswitch_baseboards() -> None:
    from test_topology_parsers import B200_GPU2_DOWN

    r = one(host(B200_GPU2_DOWN, models=["NVIDIA B200"] * 8), "IC-TOPO-READ")
    assert r.status == "issue" and "Fabric Manager" in r.message and "NV18" in r.message
    # A GB200 compute tray (modelled on GB200_4) with GPU3's links gone: the links are down, but Fabric
    # Manager is the switch trays', not this node's.
    cells = [["X" if i == j else ("SYS" if 3 in (i, j) else "NV18") for j in range(4)] for i in range(4)]
    tray = make_topo(cells, ["0-71"] * 2 + ["72-143"] * 2, ["0", "0", "1", "1"], gpu_numa=["2", "10", "18", "26"])
    r = one(host(tray, models=["NVIDIA GB200"] * 4), "IC-TOPO-READ")
    assert r.status == "issue" and "switch trays" in r.message and "check Fabric Manager" not in r.message


# --- never an issue from what a source cannot show -------------------------------------------


def test_x8_of_x16_seen_only_in_nvidia_smi_is_a_lower_confidence_issue_naming_lnkcap() -> None:
    from nvidia_support import hgx, host_for

    gpus = hgx(count=2)
    gpus[1]["pcie"] = {**gpus[1]["pcie"], "width": 8}
    r = run_checks(host_for(gpus), ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"]
    assert r.status == "issue" and r.confidence == "field-reports" and "LnkCap" in r.message
    assert r.priority == "P1"  # not P0: the slot (not shown) may be x8


# --- never ok from what an excerpt cannot show -------------------------------------------------


def test_lxc_config_fragments_and_cut_reports_are_unknown_not_ok() -> None:
    # Corpus 75: only lxc.cgroup2/lxc.mount.entry lines of a Proxmox config.
    assert corpus_result("75-", "CTR-LXC-HOST-SCOPE").status == "unknown"
    # Corpus 24: a whole /etc/pve/lxc/<id>.conf: judged.
    assert corpus_result("24-", "CTR-LXC-HOST-SCOPE").status == "ok"
    # Corpus 85: a collect_env cut before its library section.
    assert corpus_result("85-", "RT-VERSION-MATRIX").status == "unknown"
    assert corpus_result("45-", "RT-VERSION-MATRIX").status == "ok"


def test_a_gb300_tray_not_in_the_gpu_table_is_still_a_tray() -> None:
    # Modelled: GB300 has no gpus.toml row; its name alone marks a compute tray (no Fabric Manager here).
    cells = [["X" if i == j else ("SYS" if 3 in (i, j) else "NV18") for j in range(4)] for i in range(4)]
    tray = make_topo(cells, ["0-71"] * 2 + ["72-143"] * 2, ["0", "0", "1", "1"], gpu_numa=["2", "10", "18", "26"])
    r = one(host(tray, models=["NVIDIA GB300"] * 4), "IC-TOPO-READ")
    assert r.status == "issue" and "switch trays" in r.message


def test_a_recovery_action_alone_marks_the_gpu_faulted_and_none_clears_it() -> None:
    # Modelled on the Xid 154 wording of the forum thread above, with NVML's NODE_REBOOT action (2).
    r = _xid("[1] NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
             "(Node Reboot Required)\n")["DRV-XID"]
    assert r.status == "issue" and r.priority == "P0" and r.fix_cost == "reboot"
    assert r.message == "GPU 0000:18:00.0 faulted (Xid 154) — the driver asks for Node Reboot Required"
    back = _xid("[1] NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) "
                "to 0x0 (None)\n")["DRV-XID"]
    assert back.status != "issue"


def test_no_p2p_anywhere_keeps_custom_all_reduce_off_by_design_on_the_real_matrix() -> None:
    # Corpus 59 (GNS on every pair): custom all-reduce cannot run, and there is no P2P to prove broken.
    r = corpus_result("59-", "IC-CUSTOM-ALLREDUCE")
    assert r.status == "not-an-issue" and "by design" in r.message and "--disable-custom-all-reduce" in r.message
    assert corpus_result("59-", "IC-P2P-FUNCTIONAL").status == "not-applicable"


def test_inactive_links_a_bridge_product_always_shows_are_not_links_down() -> None:
    # Modelled on `nvidia-smi nvlink -s` of an H100 NVL pair: 18 link slots listed, the bridge's 12 active.
    from stackaudit.facts.topology import NVLINK_ARGV
    from stackaudit.host.memory import fake_host

    text = "".join(
        f"GPU {g}: NVIDIA H100 NVL (UUID: GPU-{g:08x}-1111-2222-3333-444455556666)\n"
        + "".join(f"\t Link {k}: " + ("26.562 GB/s" if k < 12 else "<inactive>") + "\n" for k in range(18))
        for g in range(2))
    r = run_checks(fake_host(commands={NVLINK_ARGV: text}), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
    # Not an issue: the inactive slots look like links down and are not (the key negative, named in the message).
    assert r.status == "not-an-issue" and "12/12" in r.message and "unconnected by design" in r.message
    # One of the bridge's links down is a real finding.
    down = text.replace("\t Link 3: 26.562 GB/s", "\t Link 3: <inactive>", 1)
    r = run_checks(fake_host(commands={NVLINK_ARGV: down}), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
    assert r.status == "issue" and "11 of 12" in r.message


# --- Rules settled while reconciling the acceptance scenario (tests/scenarios_rtx_pro_6000.py) ----------


def test_any_finite_memlock_without_rdma_is_a_key_negative_and_unlimited_is_ok() -> None:
    # The "set memlock to unlimited" advice is the myth: a limit, large (the scenario's 62.5 GiB) or small, is
    # a key negative where no RDMA registers memory; unlimited is simply fine.
    from report_scenarios import report

    memlock = next(r for r in report("rtx-pro-6000-lxc").results if r.id == "CTR-MEMLOCK")
    assert memlock.status == "not-an-issue" and "62.5 GiB" in memlock.message and "RDMA" in memlock.message
    r = corpus_result("78-", "CTR-MEMLOCK")  # `ulimit -a`: max locked memory 264154548 kB, no RDMA shown
    assert r.status == "not-an-issue"


def test_acs_redirect_on_root_ports_only_ranks_below_a_documented_runtime_fix() -> None:
    # Each GPU on its own root port: low severity (P2, field reports) so numa_balancing (documented) comes first.
    # NCCL_P2P_LEVEL=SYS shows peer traffic across the root ports (without it, a conditional key negative: issue 28).
    from report_scenarios import report
    from scenarios_rtx_pro_6000 import rtx_pro_6000_lxc
    from stackaudit.report.sections import sections

    rep = report("rtx-pro-6000-lxc", rtx_pro_6000_lxc(p2p_level="SYS"), tag="-p2p-sys")
    acs = next(r for r in rep.results if r.id == "FW-ACS-P2P")
    assert acs.status == "issue" and acs.severity == "low" and acs.priority == "P2"
    assert "root ports" in acs.message and acs.confidence == "field-reports"
    p2 = [r.id for r in sections(rep).fixes["P2"]]
    assert p2.index("KERN-NUMA-BALANCING") < p2.index("FW-ACS-P2P")
    assert p2.index("KERN-NUMA-BALANCING") < p2.index("KERN-CSTATES")  # documented before unproven
