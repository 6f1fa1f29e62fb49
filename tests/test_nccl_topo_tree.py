"""NCCL's topology tree (`=== System : maxBw ...`, NCCL_DEBUG_SUBSYS=GRAPH) read once into ServingLog.topo_tree
(h58d): each GPU's NET path type for IC-NIC-GPU-AFFINITY, its NVLink figure to the NVSwitch for DRV-NVLINK-HEALTH,
and the PCI switch ids only a hypervisor presents for FW-VM (corpus 1269, 627)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

# Corpus 1269 (NVIDIA/nccl-tests#256), the dump's first two GPU blocks, closed by NCCL's end line (modelled close).
H200_VM_TREE = """\
node_2:4254:4327 [5] NCCL INFO === System : maxBw 48.0 totalBw 370.8 ===
node_2:4254:4327 [5] NCCL INFO CPU/0-0 (1/2/-1)
node_2:4254:4327 [5] NCCL INFO + SYS[16.0] - CPU/0-1
node_2:4254:4327 [5] NCCL INFO + PCI[0.2] - PCI/0-65000 (104c823200000000)
node_2:4254:4327 [5] NCCL INFO              + PCI[48.0] - NIC/0-67000
node_2:4254:4327 [5] NCCL INFO                            + NET[50.0] - NET/0-c (0/d4f9fc0003ae6d94/1/50.000000)
node_2:4254:4327 [5] NCCL INFO              + PCI[48.0] - GPU/0-68000 (8)
node_2:4254:4327 [5] NCCL INFO                            + NVL[370.8] - NVS/0-0
node_2:4254:4327 [5] NCCL INFO + PCI[0.2] - PCI/0-69000 (104c823200000000)
node_2:4254:4327 [5] NCCL INFO              + PCI[48.0] - NIC/0-6c000
node_2:4254:4327 [5] NCCL INFO                            + NET[50.0] - NET/0-d (0/d2cb190003c288a0/1/50.000000)
node_2:4254:4327 [5] NCCL INFO              + PCI[48.0] - GPU/0-6b000 (9)
node_2:4254:4327 [5] NCCL INFO                            + NVL[370.8] - NVS/0-0
node_2:4254:4327 [5] NCCL INFO ==========================================
"""


def test_tree_pairs_each_gpu_with_the_nic_under_its_switch() -> None:
    tree = parse_serving_log(H200_VM_TREE).topo_tree
    assert tree is not None
    assert tree.gpus == ("68000", "6b000") and tree.closed == ("68000", "6b000")
    assert ("68000", "NET/0-c", "PIX") in tree.nets and ("68000", "NET/0-d", "PHB") in tree.nets
    assert [bw for _, _, bw, _ in tree.nvlinks] == [370.8, 370.8]
    assert len(tree.emulated) == 2


def test_cut_tree_leaves_the_last_gpu_open() -> None:
    """The log ends inside GPU/0-6b000's block (its NVL line cut): that GPU is listed, not shown whole."""
    text = "\n".join(H200_VM_TREE.splitlines()[:12]) + "\n"
    tree = parse_serving_log(text).topo_tree
    assert tree is not None and tree.closed == ("68000",)


def test_corpus_1269_judged_from_the_tree() -> None:
    results = capture_checks("1269", "FW-VM", "IC-NIC-GPU-AFFINITY", "DRV-NVLINK-HEALTH")
    assert results["FW-VM"].status == "issue"
    assert results["IC-NIC-GPU-AFFINITY"].status == "ok"
    nvlink = results["DRV-NVLINK-HEALTH"]
    assert nvlink.status == "ok" and "GPU/68000" in nvlink.message and "GPU/70000" not in nvlink.message


def test_modelled_fewer_links_stays_unknown(tmp_path: Path) -> None:
    """Modelled: NVL[164.8] (8 x 20.6, an H800's full count or an H100 with links down) does not settle it."""
    text = H200_VM_TREE.replace("NVL[370.8]", "NVL[164.8]")
    assert paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status == "unknown"


def test_modelled_physical_switch_is_no_vm_signal(tmp_path: Path) -> None:
    """Modelled: a Broadcom PEX switch (1000c010...) names no hypervisor: FW-VM stays unread."""
    text = H200_VM_TREE.replace("104c823200000000", "1000c01010000000")
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status == "unknown"


# Corpus 1154 (NVIDIA/nccl#584): NCCL's older tree (`maxWidth`), whole, two GPUs under two CPUs, no NVL line.
OLD_TREE_TWO_SOCKETS = """\
ubuntu:199574:201479 [1] NCCL INFO === System : maxWidth 9.0 ===
ubuntu:199574:201479 [1] NCCL INFO CPU/0 (1/1/2)
ubuntu:199574:201479 [1] NCCL INFO + PCI[5000.0] - NIC/0
ubuntu:199574:201479 [1] NCCL INFO + PCI[12.0] - GPU/5E000 (0)
ubuntu:199574:201479 [1] NCCL INFO + SYS[9.0] - CPU/1
ubuntu:199574:201479 [1] NCCL INFO + PCI[3.0] - NIC/18000
ubuntu:199574:201479 [1] NCCL INFO CPU/1 (1/1/2)
ubuntu:199574:201479 [1] NCCL INFO + PCI[12.0] - GPU/B1000 (1)
ubuntu:199574:201479 [1] NCCL INFO + SYS[9.0] - CPU/0
ubuntu:199574:201479 [1] NCCL INFO ==========================================
"""


def test_whole_tree_without_nvl_is_no_nvlink(tmp_path: Path) -> None:
    tree = parse_serving_log(OLD_TREE_TWO_SOCKETS).topo_tree
    assert tree is not None and tree.whole and tree.gpus == ("5e000", "b1000") and not tree.nvlinks
    result = paste_checks(tmp_path, OLD_TREE_TWO_SOCKETS, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-applicable"


def test_cut_tree_without_nvl_stays_open(tmp_path: Path) -> None:
    """Modelled: the same tree cut before its closing line may hold NVL links further down."""
    text = "\n".join(OLD_TREE_TWO_SOCKETS.splitlines()[:8]) + "\n"
    assert paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status != "not-applicable"


MATRIX_NO_NVLINK = """\
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity
GPU0     X      PIX     NODE    NODE    0-23,48-71      0
GPU1    PIX      X      NODE    NODE    0-23,48-71      0
GPU2    NODE    NODE     X      PIX     0-23,48-71      0
GPU3    NODE    NODE    PIX      X      0-23,48-71      0
"""


def test_whole_matrix_without_nv_of_unnamed_gpus_is_a_pcie_build(tmp_path: Path) -> None:
    """Modelled on corpus 1143: a whole matrix, no NV# cell, no model named."""
    result = paste_checks(tmp_path, MATRIX_NO_NVLINK, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-applicable" and "PCIe build" in result.message


def test_cut_matrix_without_nv_stays_open(tmp_path: Path) -> None:
    """Modelled: the last row cut short leaves a pair unshown."""
    text = MATRIX_NO_NVLINK.replace("GPU3    NODE    NODE    PIX      X      0-23,48-71      0\n", "GPU3    NODE\n")
    assert paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status != "not-applicable"


# Corpus 2262 (NVIDIA/nccl#1499), rank 3's Init START line and its tree down to CPU/0's block, verbatim but for the
# line cut in the paste (left out). Four GPUs NVLink joins directly, each under a CPU node of its own (AMD, 1/2/-1).
AMD_FOUR_NVLINK = """\
testpc115159:2736637:2737363 [3] NCCL INFO comm 0x5587025ac800 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId c1000 commId 0xd57beaec7aafe641 - Init START
testpc115159:2736637:2737363 [3] NCCL INFO === System : maxBw 80.0 totalBw 240.0 ===
testpc115159:2736637:2737363 [3] NCCL INFO CPU/1 (1/2/-1)
testpc115159:2736637:2737363 [3] NCCL INFO + PCI[5000.0] - NIC/0
testpc115159:2736637:2737363 [3] NCCL INFO + PCI[24.0] - GPU/1000 (0)
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/41000
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/C1000
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/81000
testpc115159:2736637:2737363 [3] NCCL INFO + SYS[16.0] - CPU/0
testpc115159:2736637:2737363 [3] NCCL INFO + SYS[16.0] - CPU/3
testpc115159:2736637:2737363 [3] NCCL INFO + SYS[16.0] - CPU/2
testpc115159:2736637:2737363 [3] NCCL INFO CPU/0 (1/2/-1)
testpc115159:2736637:2737363 [3] NCCL INFO + PCI[24.0] - GPU/41000 (1)
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/C1000
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/1000
testpc115159:2736637:2737363 [3] NCCL INFO               + NVL[80.0] - GPU/81000
testpc115159:2736637:2737363 [3] NCCL INFO + SYS[16.0] - CPU/1
"""


def test_direct_nvlink_tree_is_read() -> None:
    """The header's totalBw, each GPU's CPU root, the NIC left without its NET and the NVLink peers the tree names."""
    tree = parse_serving_log(AMD_FOUR_NVLINK).topo_tree
    assert tree is not None and tree.total_bw == 240.0
    assert tree.gpu_cpus == (("1000", "CPU/1"), ("41000", "CPU/0"))
    assert tree.bare_nics == ("testpc115159:2736637:2737363 [3] NCCL INFO + PCI[5000.0] - NIC/0",)
    assert tree.named_gpus() == ("1000", "41000", "c1000", "81000")
    board = tree.mesh_board()
    assert board is not None and board[1] == 20.0 and board[3] == 4 and "A100" in board[0]


def test_corpus_2262_four_gpu_nvlink_board() -> None:
    results = capture_checks("2262", "DRV-NVLINK-HEALTH", "FW-NUMA-NPS", "IC-NIC-GPU-AFFINITY")
    nvlink = results["DRV-NVLINK-HEALTH"]
    assert nvlink.status == "ok" and "80 + 80 + 80 = 240" in nvlink.message, nvlink.message
    assert nvlink.coverage is not None and nvlink.coverage.text() == "2 of 4 GPUs shown"
    nps = results["FW-NUMA-NPS"]
    assert nps.status == "not-an-issue" and "CPU/0: GPU/41000; CPU/1: GPU/1000" in nps.message, nps.message
    nic = results["IC-NIC-GPU-AFFINITY"]
    assert nic.status == "not-applicable" and "NIC with no NET" in nic.message, nic.message


def test_corpus_2263_v100_hybrid_cube_mesh() -> None:
    """Another thread (deepspeedai/DeepSpeed#5022): a V100's 2+2+1+1 links at NCCL 2.17's 22.0, on a board of eight."""
    nvlink = capture_checks("2263", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert nvlink.status == "ok" and "V100 SXM2" in nvlink.message and "44 + 44 + 22 + 22 = 132" in nvlink.message
    assert nvlink.coverage is not None and nvlink.coverage.text() == "1 of 8 GPUs shown"


def test_modelled_link_down_or_short_of_totalbw_stays_unknown(tmp_path: Path) -> None:
    """Modelled on 2262: one pair at three links (60.0) matches no board; every bond at 80 but a header whose totalBw
    says another GPU has more does not settle it either."""
    down = AMD_FOUR_NVLINK.replace("+ NVL[80.0] - GPU/C1000\n", "+ NVL[60.0] - GPU/C1000\n", 1)
    assert paste_checks(tmp_path, down, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status == "unknown"
    short = AMD_FOUR_NVLINK.replace("totalBw 240.0", "totalBw 260.0")
    assert parse_serving_log(short).topo_tree.mesh_board() is None  # type: ignore[union-attr]
    assert paste_checks(tmp_path, short, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status == "unknown"


def test_modelled_hopper_board_and_mixed_figures() -> None:
    """Modelled: six links to each peer at Hopper's 20.6 is the four-GPU H100 board; one GPU at 20.0 a link and the
    other at 22.0 are no one board."""
    hopper = AMD_FOUR_NVLINK.replace("NVL[80.0]", "NVL[123.6]").replace("totalBw 240.0", "totalBw 370.8")
    board = parse_serving_log(hopper).topo_tree.mesh_board()  # type: ignore[union-attr]
    assert board is not None and "H100" in board[0] and board[1] == 20.6
    mixed = "\n".join(ln.replace("NVL[80.0]", "NVL[88.0]") if i >= 12 else ln
                      for i, ln in enumerate(AMD_FOUR_NVLINK.splitlines())).replace(" totalBw 240.0", "") + "\n"
    assert parse_serving_log(mixed).topo_tree.mesh_board() is None  # type: ignore[union-attr]


def test_modelled_nic_cut_or_larger_communicator_shows_no_trim() -> None:
    """Modelled on 2262: a paste cut on the NIC's line does not show its block whole; a communicator of eight ranks
    over the four GPUs the tree names has ranks elsewhere, where NCCL keeps its NETs."""
    cut = "\n".join(AMD_FOUR_NVLINK.splitlines()[:4]) + "\n"
    tree = parse_serving_log(cut).topo_tree
    assert tree is not None and tree.bare_nics == ()
    larger = AMD_FOUR_NVLINK.replace("nranks 4", "nranks 8")
    assert parse_serving_log(larger).nets_trimmed() == ()
    assert parse_serving_log(AMD_FOUR_NVLINK).nets_trimmed() != ()


def test_corpus_2268_gpus_on_two_cpus_from_a_nets_path_line() -> None:
    """NVIDIA/nccl#601: gpu24's NET/3 line reaches GPU/83000 and 84000 over PHB (its own CPU/1) and GPU/2000 and 3000
    over SYS (the other CPU listed, CPU/0)."""
    nps = capture_checks("2268", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert nps.status == "not-an-issue", nps.message
    assert "CPU/0: GPU/2000, GPU/3000; CPU/1: GPU/83000, GPU/84000" in nps.message


def test_other_threads_gpus_on_two_sockets() -> None:
    """NVIDIA/nccl#584 (1154, a whole tree and the GPUs' path lines) and NVIDIA/nccl-tests#307 (514, eight RTX 4090
    on two CPU nodes) read the same way."""
    for prefix in ("1154", "514"):
        assert capture_checks(prefix, "FW-NUMA-NPS")["FW-NUMA-NPS"].status == "not-an-issue"


def test_one_cpu_node_or_no_numa_id_settles_nothing(tmp_path: Path) -> None:
    """Corpus 2263's tree shows its GPUs under CPU/0 alone; modelled on 2262, a root NCCL names for a device that
    reports no node (`CPU/FFFFFFFFFFFFFFFF`) leaves one node, and two hosts' lines one each are no host's layout."""
    assert capture_checks("2263", "FW-NUMA-NPS")["FW-NUMA-NPS"].status == "unknown"
    blind = AMD_FOUR_NVLINK.replace("CPU/1 (1/2/-1)", "CPU/FFFFFFFFFFFFFFFF (1/2/-1)")
    assert paste_checks(tmp_path, blind, "FW-NUMA-NPS")["FW-NUMA-NPS"].status == "unknown"
    net_line = ("NCCL INFO NET/0 :GPU/2000 (3/1.2/PHB) GPU/3000 (3/1.2/PHB) CPU/0 (2/1.2/PHB) CPU/1 (3/1.2/SYS) "
                "NET/0 (0/5000.0/LOC)")
    apart = f"gpu23:1:2 [0] {net_line}\ngpu24:1:2 [0] {net_line.replace('CPU/0 (2', 'CPU/9 (2')}\n"
    assert parse_serving_log(apart).gpu_cpu_nodes()[0][:3] == ("gpu23", "2000", "CPU/0")
    assert paste_checks(tmp_path, apart, "FW-NUMA-NPS")["FW-NUMA-NPS"].status == "unknown"


def test_path_and_tree_regexes_stay_linear_on_a_long_line() -> None:
    import time

    from stackaudit.facts.serving_logs import cpu_homes

    long = "h:1:2 [0] NCCL INFO NET/0 :" + "GPU/1000 (3/1.2/PHB) CPU/0 (2/1.2/PHB) " * 5000
    start = time.perf_counter()
    cpu_homes(long)
    parse_serving_log(long + "\nh:1:2 [0] NCCL INFO === System : maxBw " + "9" * 200_000 + "\n")
    assert time.perf_counter() - start < 1.0
