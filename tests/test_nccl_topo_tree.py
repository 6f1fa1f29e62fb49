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
