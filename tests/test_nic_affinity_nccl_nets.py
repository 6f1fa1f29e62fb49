"""IC-NIC-GPU-AFFINITY from NCCL's NET channels without a matrix (h67c): one host's ranks split on GPU Direct RDMA,
and NET channels all over sockets.

NCCL writes `GDRDMA` on a NET channel where the GPU's path to the NIC is within NCCL_NET_GDR_LEVEL (default PXB).
On one host, a rank whose channel says it shows the NICs can reach GPU memory there; another rank receiving over an
RDMA NIC without it was kept off the NIC by its distance: the placement itself, an issue (ServingLog.gdr_split).
A send channel alone says nothing: GDR reads may be off (NCCL_NET_GDR_READ).
NET channels all `via NET/Socket` show the communicator's network is TCP sockets: no RDMA NIC carries its traffic.
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


# Corpus 589 (node ibis), three of its lines verbatim: ranks 2 and 3 reach ranks 0 and 1 of the other node over sockets.
IBIS = """\
ibis:13594:13679 [2] NCCL INFO Channel 00 : 1[61000] -> 2[1c000] [receive] via NET/Socket/0
ibis:13594:13679 [2] NCCL INFO Channel 00 : 2[1c000] -> 3[1d000] via direct shared memory
ibis:13595:13676 [3] NCCL INFO Channel 00 : 3[1d000] -> 0[60000] [send] via NET/Socket/0
"""

# Modelled: one NET channel over sockets beside one over an HCA: the socket line does not settle the job's network.
MIXED_NETS = IBIS + "ibis:13595:13676 [3] NCCL INFO Channel 01 : 3[1d000] -> 0[60000] [send] via NET/IB/0\n"


def test_net_channels_over_sockets_carry_no_rdma(tmp_path: Path) -> None:
    """Every NET channel `via NET/Socket`: NCCL's network for the communicator is TCP sockets, so no RDMA NIC carries
    its traffic between nodes: not applicable (589, 1007), as KVER-DMABUF and IC-NVIDIA-PEERMEM read it (780)."""
    got = paste_checks(tmp_path, IBIS, CHECK, "KVER-DMABUF", "IC-NVIDIA-PEERMEM")
    assert got[CHECK].status == "not-applicable"
    assert "NET/Socket" in got[CHECK].message
    assert got["KVER-DMABUF"].status == "not-applicable"
    assert got["IC-NVIDIA-PEERMEM"].status == "not-applicable"


def test_corpus_1007_and_780_socket_channels_are_not_applicable() -> None:
    assert capture_checks("1007", CHECK)[CHECK].status == "not-applicable"
    got = capture_checks("780", "KVER-DMABUF", "IC-NVIDIA-PEERMEM")
    assert got["KVER-DMABUF"].status == "not-applicable"
    assert got["IC-NVIDIA-PEERMEM"].status == "not-applicable"


def test_a_socket_channel_beside_an_hca_channel_is_not_read_as_no_rdma(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, MIXED_NETS, CHECK)[CHECK]
    assert got.status != "not-applicable"
