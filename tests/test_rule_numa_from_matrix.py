"""Rule: without `lscpu` / `numactl -H` / sysfs, FW-NUMA-NPS reads the GPUs' `NUMA Affinity` in `nvidia-smi topo -m`
(issue 28): GPUs on two or more nodes, each reporting its node, is a multi-node layout recorded, not a fault; a GPU
there without a node is the fault the check flags, also where its CPUs alone lie apart from the GPUs on a node
(402); one node shown (`TopoMatrix.one_node`: every GPU on the same node with the same CPUs, one range from CPU 0)
is not applicable, and IC-NUMA-AFFINITY ok (r28i: the blind readings of 60, 180 and 401); a GPU spanning several
nodes, or one node whose CPUs are two ranges, leaves it unknown. `lscpu`'s node count decides over cut node lists.

Real pastes: 236 (nccl#1505, DGX A100, nodes 3 and 1 in a cut matrix), 242 (DGX, two nodes, header cut), 243
(go-gpuallocator#17, 8x RTX 4090 all SYS, two nodes), 180, 401 and club-3090#1229 (one node), dask-cuda#1358 (one
node of many), 402 and HAMi#99 (a GPU without a node), 404 and 48 (lscpu), 26 (a whole `numactl -H`: the existing
ok). The counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

NPS = "FW-NUMA-NPS"
AFF = "IC-NUMA-AFFINITY"


def test_gpus_on_several_nodes_each_with_its_node_is_a_layout() -> None:
    for prefix, nodes in (("236", "1, 3"), ("242", "0, 1"), ("243", "0, 1")):
        result = capture_checks(prefix, "FW-NUMA-NPS")["FW-NUMA-NPS"]
        assert result.status == "not-an-issue", (prefix, result.message)
        assert f"NUMA nodes {nodes}" in result.message and "lscpu" in result.message


def test_cut_rows_are_the_coverage() -> None:
    result = capture_checks("236", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.coverage.shown == ("GPU0", "GPU1", "GPU2", "GPU3") and result.coverage.total == 8


def test_one_node_in_the_matrix_is_not_applicable_180() -> None:
    result = capture_checks("180", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "not-applicable" and "0-23" in result.message and "lscpu" in result.message


def test_a_whole_numactl_still_decides() -> None:
    result = capture_checks("26", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "ok" and "2 NUMA node" in result.message


_MATRIX = """\
$ nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NODE    SYS     SYS     0-31    0               N/A
GPU1    NODE     X      SYS     SYS     0-31    0               N/A
GPU2    SYS     SYS      X      NODE    32-63   1               N/A
GPU3    SYS     SYS     NODE     X      32-63   1               N/A
"""


def test_modelled_gpu_without_a_node_on_a_multi_node_host_is_the_fault(tmp_path: Path) -> None:
    text = _MATRIX.replace("32-63   1               N/A\nGPU3", "32-63   N/A             N/A\nGPU3")
    result = paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "issue" and result.subjects == ("GPU2",)


def test_modelled_gpus_spanning_nodes_leave_it_unknown(tmp_path: Path) -> None:
    text = _MATRIX.replace("0               N/A", "0-1             N/A")
    result = paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "unknown"


# https://github.com/noonghunna/club-3090/issues/1229 (a 2x RTX 5090 bench report, `nvidia-smi topo -m`).
CLUB_1229 = """\
\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tPHB\t0-63\t0\t\tN/A
GPU1\tPHB\t X \t0-63\t0\t\tN/A

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
"""

# https://github.com/rapidsai/dask-cuda/issues/1358 (a Slurm job's two GPUs, both on node 3; NIC columns left out).
DASK_1358 = """\
       GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV12    48-63,176-191   3               N/A
GPU1    NV12     X      48-63,176-191   3               N/A
"""

# https://github.com/Project-HAMi/HAMi/pull/99 (one Tesla P4 whose NUMA Affinity is N/A).
HAMI_99 = """\
\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \t0-7\t\tN/A\t\tN/A
"""


def test_one_node_phb_pair_401() -> None:
    # club-3090#104: two RTX 3090 over PHB, both on node 0 with CPUs 0-15.
    r = capture_checks("401", NPS, AFF)
    assert r[NPS].status == "not-applicable" and "0-15" in r[NPS].message
    assert r[AFF].status == "ok" and "node 0" in r[AFF].message


def test_one_node_four_gpus_with_nvlink_pairs_also_affinity_180() -> None:
    # open-gpu-kernel-modules PR 18: four RTX 3090, NV4 pairs and PHB/NODE paths, every GPU on node 0, CPUs 0-23.
    r = capture_checks("180", NPS, AFF)
    assert r[NPS].status == "not-applicable" and "0-23" in r[NPS].message
    assert r[AFF].status == "ok"


def test_one_node_p2p_ok_keeps_its_p2p_reason_60() -> None:
    # open-gpu-kernel-modules#13: five GPUs on node 0 with `topo -p2p` OK: the P2P reason decides first.
    assert "P2P OK" in capture_checks("60", NPS)[NPS].message


def test_one_node_from_another_thread(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_1229, NPS, AFF)
    assert r[NPS].status == "not-applicable" and r[AFF].status == "ok"


def test_node_whose_cpus_are_two_ranges_is_not_one_node(tmp_path: Path) -> None:
    # dask-cuda#1358: both GPUs on node 3 with CPUs 48-63,176-191: a node of a many-node host, not the only one;
    # each GPU reports it, so the layout is recorded (not-an-issue), and where the engine runs is not shown.
    r = paste_checks(tmp_path, DASK_1358, NPS, AFF)
    assert r[NPS].status == "not-an-issue" and "0-47" in r[NPS].message and r[AFF].status == "unknown"


def test_modelled_all_gpus_on_node_0_of_a_two_socket_host(tmp_path: Path) -> None:
    # Modelled on 401: the same pair with CPUs 0-7,16-23 (node 0 of a two-socket host with SMT): other CPUs exist
    # off the GPUs' node, so the matrix does not show one node; both GPUs report theirs (a layout).
    text = body("401").replace("0-15", "0-7,16-23")
    r = paste_checks(tmp_path, text, NPS, AFF)
    assert r[NPS].status == "not-an-issue" and "8-15" in r[NPS].message and r[AFF].status == "unknown"


def test_gpu_without_node_on_a_two_node_host_402() -> None:
    # club-3090#178: GPU0 N/A with CPUs 0-7,16-23, GPU1 on node 1 with CPUs 8-15,24-31.
    r = capture_checks("402", NPS)[NPS]
    assert r.status == "issue" and list(r.subjects) == ["GPU0"]
    assert "at least 2 NUMA nodes" in r.message


def test_single_gpu_without_node_is_not_flagged(tmp_path: Path) -> None:
    # HAMi#99: one GPU, NUMA Affinity N/A: nothing shows a second node.
    assert paste_checks(tmp_path, HAMI_99, NPS)[NPS].status == "unknown"


def test_modelled_gpu_without_node_sharing_cpus_is_not_flagged(tmp_path: Path) -> None:
    # Modelled on 402: GPU0 lists the same CPUs as GPU1 (8-15,24-31): nothing shows that it sits on another node.
    text = body("402").replace("0-7,16-23", "8-15,24-31")
    assert paste_checks(tmp_path, text, NPS)[NPS].status == "unknown"


def test_lscpu_node_count_decides_over_cut_node_lists_404() -> None:
    # vllm#13188: `NUMA node(s): 4` on 4 sockets, the node lists cut after node1.
    r = capture_checks("404", NPS)[NPS]
    assert r.status == "ok" and "4 NUMA node(s) on 4 socket(s)" in r.message


def test_lscpu_whole_node_lists_48() -> None:
    # 48: a two-socket EPYC 7281 with its 8 node lists: NPS4.
    assert "NPS4 (8 NUMA nodes on 2 socket(s))" in capture_checks("48", NPS)[NPS].message


def test_gpus_on_one_node_whose_cpu_list_skips_lower_cpus_are_a_layout() -> None:
    """Corpus 1143 (axolotl-ai-cloud/axolotl#536): eight GPUs all on NUMA node 0 with CPUs 0-23,48-71: CPUs 24-47
    are another node's, so the host has two and every GPU reports its own."""
    r = capture_checks("1143", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert r.status == "not-an-issue" and "24-47" in r.message


def test_gpus_on_one_node_with_one_range_from_zero_stay_not_applicable(tmp_path: Path) -> None:
    """Modelled: the same matrix with one CPU range from 0 is what a one-node host prints."""
    r = paste_checks(tmp_path, body("1143").replace("0-23,48-71", "0-47"), "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert r.status == "not-applicable"
