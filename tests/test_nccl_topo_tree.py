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
