"""FW-NUMA-NPS is not applicable where `nvidia-smi topo -p2p` shows P2P OK between every GPU of a whole `topo -m`,
each GPU on its NUMA node: GPU traffic then does not go through CPU memory, whose speed NPS/SNC shapes (the
knowledge base's "Applies when": multi-GPU PCIe systems without P2P)."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

NPS = "FW-NUMA-NPS"


def test_p2p_ok_between_all_five_gpus_is_not_applicable_60() -> None:
    # aikitoria/open-gpu-kernel-modules#13: five RTX 50-series on node 0, `topo -p2p p` OK between all of them.
    r = capture_checks("60", NPS)[NPS]
    assert r.status == "not-applicable" and "5 GPUs" in r.message


def test_p2p_refused_by_geforce_on_one_node_59() -> None:
    # club-3090 bench: two RTX 5090 on one node, `topo -p2p rw` GNS both ways. P2P does not clear the check here;
    # the one node the matrix shows does (tests/test_numa_from_matrix.py).
    r = capture_checks("59", NPS)[NPS]
    assert r.status == "not-applicable" and "P2P" not in r.message and "0-63" in r.message


def test_p2p_not_supported_on_the_platform_one_node_206() -> None:
    # club-3090 bench (indented Markdown): two GPUs NODE apart, `topo -p2p` NS both ways, both on node 0, CPUs 0-15.
    r = capture_checks("206", NPS)[NPS]
    assert r.status == "not-applicable" and "one NUMA node" in r.message


def test_modelled_gpu_without_a_node_is_not_cleared_by_p2p(tmp_path: Path) -> None:
    # Modelled on capture 60: the same matrices with GPU4's NUMA affinity N/A: the locality the check flags is
    # missing, so P2P OK does not make the check not applicable.
    text = body("60").replace("PHB\t X \t0-63\t0\t", "PHB\t X \t0-63\tN/A\t", 1)
    assert "0-63\tN/A\t" in text
    assert paste_checks(tmp_path, text, NPS)[NPS].status != "not-applicable"
