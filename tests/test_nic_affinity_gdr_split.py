"""IC-NIC-GPU-AFFINITY from NCCL's channels where one host's ranks split on GPU Direct RDMA (h67c).

NCCL writes `GDRDMA` on a NET channel where the GPU's path to the NIC is within NCCL_NET_GDR_LEVEL (default PXB).
On one host, a rank whose channel says it shows the NICs can reach GPU memory there; another rank receiving over an
RDMA NIC without it was kept off the NIC by its distance: the placement itself, an issue (ServingLog.gdr_split).
A send channel alone says nothing: GDR reads may be off (NCCL_NET_GDR_READ).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "IC-NIC-GPU-AFFINITY"

# Modelled on corpus 778: one rank receives with GDRDMA, another receives over the NIC without it.
SPLIT = """\
hostA:100:120 [4] NCCL INFO Channel 00/0 : 11[13000] -> 12[83000] [receive] via NET/IB/1/GDRDMA
hostA:101:121 [0] NCCL INFO Channel 00/0 : 7[91000] -> 8[5000] [receive] via NET/IB/0
"""

# Modelled: the far rank only sends without GDRDMA (GDR reads may be off): not a split.
SEND_ONLY = """\
hostA:100:120 [4] NCCL INFO Channel 00/0 : 11[13000] -> 12[83000] [receive] via NET/IB/1/GDRDMA
hostA:102:122 [7] NCCL INFO Channel 00/0 : 15[91000] -> 0[5000] [send] via NET/IB/1
"""

# Modelled: the two ranks log from two hosts: a host without GDR is a peer-memory question, not placement.
TWO_HOSTS = """\
hostA:100:120 [4] NCCL INFO Channel 00/0 : 11[13000] -> 12[83000] [receive] via NET/IB/1/GDRDMA
hostB:101:121 [0] NCCL INFO Channel 00/0 : 7[91000] -> 8[5000] [receive] via NET/IB/0
"""


def test_corpus_778_receive_without_gdrdma_beside_gdrdma_is_an_issue() -> None:
    """DeepSpeed#2931: rank 12 receives via NET/IBext/1/GDRDMA, rank 8 via NET/IBext/0, both on PHLRR3088."""
    got = capture_checks("778", CHECK)[CHECK]
    assert got.status == "issue"
    assert "rank 8" in got.message and "rank 12" in got.message


def test_split_on_one_host_is_an_issue(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, SPLIT, CHECK)[CHECK]
    assert got.status == "issue"
    assert got.actual == {"rank 12": "GDRDMA", "rank 8": "no GDRDMA on receive"}


def test_send_without_gdrdma_is_no_split(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, SEND_ONLY, CHECK)[CHECK]
    assert got.status != "issue"


def test_split_across_two_hosts_is_not_placement(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, TWO_HOSTS, CHECK)[CHECK]
    assert got.status != "issue"
