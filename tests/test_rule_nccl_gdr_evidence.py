"""NCCL's own network lines as evidence for KVER-DMABUF and IC-NIC-GPU-AFFINITY (issue 28, blind run Q: 479, 480).

`GDRDMA` on a rank's NET channel (`via NET/IB/9/GDRDMA`) says NCCL registered that GPU's buffers with the RDMA NIC
(ServingLog.net_gdr). That proves GPUDirect RDMA works for the rank (nvidia_peermem or DMA-BUF: the line does not say
which), and NCCL does it only where the GPU-NIC path is within NCCL_NET_GDR_LEVEL (default PXB). `NET/IB : No device
found` means NCCL sends over no RDMA NIC: KVER-DMABUF does not apply. Real lines are verbatim from the public thread
beside each (or a corpus capture); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECKS = ("KVER-DMABUF", "IC-NIC-GPU-AFFINITY")

# https://github.com/NVIDIA/nccl/issues/707 (ConnollyLeon, A100 nodes): four ranks of one node, every NET channel GDR.
NCCL_707 = """\
10-90-43-152:120890:121560 [0] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA
10-90-43-152:120890:121561 [1] NCCL INFO Channel 01 : 2[c7000] -> 1[8d000] [receive] via NET/IB/5/GDRDMA
10-90-43-152:120890:121563 [3] NCCL INFO Channel 01 : 3[ca000] -> 2[c7000] [send] via NET/IB/2/GDRDMA
10-90-43-152:120890:121562 [2] NCCL INFO Channel 01 : 3[ca000] -> 2[c7000] [receive] via NET/IB/2/GDRDMA
10-90-43-152:120890:121562 [2] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IB/2/GDRDMA
10-90-43-152:120890:121560 [0] NCCL INFO Channel 01 : 0[87000] -> 2[c7000] [send] via NET/IB/5/GDRDMA
"""
# https://github.com/deepseek-ai/DeepEP/issues/106 (idealboy): HPC-X's IBext plugin, two of the first node's ranks.
DEEPEP_106 = """\
VM-17-82-centos:11980:12549 [2] NCCL INFO Channel 03/0 : 2[2] -> 10[2] [send] via NET/IBext/2/GDRDMA
VM-17-82-centos:11978:12548 [0] NCCL INFO Channel 12/0 : 8[0] -> 0[0] [receive] via NET/IBext/0/GDRDMA
"""
# The shape NVIDIA/nccl#897 (QingruiSun) quotes, with the log prefix modelled: the receiver on the other node gets no
# GDR (its nvidia_peermem was not loaded, the thread's answer).
NCCL_897 = """\
node1:4242:4300 [1] NCCL INFO Channel 00/0 : 9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA
node0:4141:4200 [2] NCCL INFO Channel 00/0 : 9[1a000] -> 2[6b000] [receive] via NET/IB/1
"""
# Modelled: the GDR level raised past PXB, so GDRDMA no longer says the NIC is near.
GDR_LEVEL_SYS = "g148:14937:14937 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS\n" + NCCL_707


def _run(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, *CHECKS)


def test_gdrdma_channels_are_ok_over_the_ranks_that_show_them(tmp_path: Path) -> None:
    # Three threads: NVIDIA/nccl#1589 (corpus 480: rank 0 only), nccl#707 (ranks 0-3), DeepEP#106 (ranks 0 and 2).
    for results, ranks in ((capture_checks("480", *CHECKS), 1), (_run(tmp_path, NCCL_707), 4),
                           (_run(tmp_path, DEEPEP_106), 2)):
        for cid in CHECKS:
            r = results[cid]
            assert r.status == "ok", (cid, r.message)
            assert r.coverage is not None and r.coverage.count == ranks, (cid, r.coverage)
            assert any("GDRDMA" in line for line in r.evidence)
        assert "the line does not say which" in results["KVER-DMABUF"].message


def test_a_rank_without_gdr_keeps_both_checks_from_ok(tmp_path: Path) -> None:
    results = _run(tmp_path, NCCL_897)
    for cid in CHECKS:
        assert results[cid].status == "unknown", (cid, results[cid].message)


def test_a_raised_gdr_level_says_nothing_of_nic_placement(tmp_path: Path) -> None:
    results = _run(tmp_path, GDR_LEVEL_SYS)
    assert results["IC-NIC-GPU-AFFINITY"].status == "unknown"
    assert "NCCL_NET_GDR_LEVEL=SYS" in results["IC-NIC-GPU-AFFINITY"].message
    assert results["KVER-DMABUF"].status == "ok"


def test_no_ib_device_makes_gdr_irrelevant_without_a_kernel() -> None:
    # Corpus 479 (vllm#8978, one host), 97 (a multi-node AWS job), 95 (TensorRT-LLM on four RTX 4090): no uname.
    for prefix in ("479", "97", "95"):
        r = capture_checks(prefix, "KVER-DMABUF")["KVER-DMABUF"]
        assert r.status == "not-applicable", (prefix, r.message)
        assert "NCCL" in r.message


def test_using_network_socket_alone_is_not_read_as_no_rdma_nic() -> None:
    # Corpus 431 (sglang#3398): a 16-rank run over sockets; NCCL_IB_DISABLE or the excerpt's cut gives the same line on
    # a host whose RDMA NICs go unused, so neither check is settled by it.
    results = capture_checks("431", *CHECKS)
    for cid in CHECKS:
        assert results[cid].status == "unknown", (cid, results[cid].message)
