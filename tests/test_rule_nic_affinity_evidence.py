"""IC-NIC-GPU-AFFINITY judged from what the paste shows: the NIC columns of `nvidia-smi topo -m`, and NCCL's own
word that it uses no RDMA device (issue 28, blind run H)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CHECK = "IC-NIC-GPU-AFFINITY"

# https://github.com/NVIDIA/nccl/issues/1343 (issue body, A40 with two ConnectX-7): each NIC is PIX to one GPU pair
# and NODE to the other pair of its socket; the GPU rows of the fenced matrix, verbatim.
NCCL_1343 = """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV4     NODE    NODE    SYS     SYS     SYS     SYS     NODE    SYS     0-95    0               N/A
GPU1    NV4      X      NODE    NODE    SYS     SYS     SYS     SYS     NODE    SYS     0-95    0               N/A
GPU2    NODE    NODE     X      NV4     SYS     SYS     SYS     SYS     PIX     SYS     0-95    0               N/A
GPU3    NODE    NODE    NV4      X      SYS     SYS     SYS     SYS     PIX     SYS     0-95    0               N/A
GPU4    SYS     SYS     SYS     SYS      X      NV4     NODE    NODE    SYS     NODE    96-191  1               N/A
GPU5    SYS     SYS     SYS     SYS     NV4      X      NODE    NODE    SYS     NODE    96-191  1               N/A
GPU6    SYS     SYS     SYS     SYS     NODE    NODE     X      NV4     SYS     PIX     96-191  1               N/A
GPU7    SYS     SYS     SYS     SYS     NODE    NODE    NV4      X      SYS     PIX     96-191  1               N/A
NIC0    NODE    NODE    PIX     PIX     SYS     SYS     SYS     SYS      X      SYS
NIC1    SYS     SYS     SYS     SYS     NODE    NODE    PIX     PIX     SYS      X

NIC Legend:

  NIC0: mlx5_0
  NIC1: mlx5_1
"""


def test_nics_near_some_gpus_only_is_an_issue_without_an_engine(tmp_path: Path) -> None:
    """Real (nccl#1343): GPU0/1 and GPU4/5 reach their socket's NIC only over NODE, past the GDR default (PXB)."""
    r = paste_checks(tmp_path, NCCL_1343, CHECK)[CHECK]
    assert r.status == "issue"
    assert "GPU0" in r.message and "GPU5" in r.message and "GPU2" not in r.message.split("(")[0]


def test_both_nics_on_one_socket_is_an_issue() -> None:
    """Real (nccl-tests#29, capture 335): both mlx5 on socket 0, so GPU4-GPU7 reach them over SYS."""
    r = capture_checks("335", CHECK)[CHECK]
    assert r.status == "issue" and "GPU7" in r.message


def test_nics_near_every_gpu_stays_ok() -> None:
    """Real (capture 290, one PIX NIC per GPU): the near case the corpus judges ok from the matrix alone."""
    assert capture_checks("290", CHECK)[CHECK].status == "ok"


def test_nics_far_from_every_gpu_stays_unknown() -> None:
    """Real (nccl#1530, capture 332): NICs SYS to every GPU may be a storage network; no placement is shown."""
    assert capture_checks("332", CHECK)[CHECK].status == "unknown"


@pytest.mark.parametrize("prefix", ["341", "56", "95", "74"])
def test_nccl_without_an_ib_device_is_not_applicable(prefix: str) -> None:
    """Real (pytorch#72835 and three more threads): NCCL's "NET/IB : No device found" on one host."""
    r = capture_checks(prefix, CHECK)[CHECK]
    assert r.status == "not-applicable" and "no InfiniBand/RoCE device" in r.message


def test_multi_node_log_without_ib_is_not_read_as_local() -> None:
    """Real (capture 97, a multi-node AWS log over sockets): several hosts, so no "one host" reading; but every node
    logs NCCL's own "NET/IB : No device found", so no RDMA NIC carries the job's traffic (h52c: NCCL's word holds on a
    job across nodes too)."""
    r = capture_checks("97", CHECK)[CHECK]
    assert r.status == "not-applicable" and "no InfiniBand/RoCE device" in r.message and "one node" not in r.message


def test_single_host_log_with_p2p_rings_but_hcas_in_use_is_not_local() -> None:
    """Real (capture 205): a cut log shows P2P rings only, but NCCL names the HCAs it uses (a 256-rank job)."""
    assert capture_checks("205", CHECK)[CHECK].status == "unknown"


def test_ib_disabled_by_environment_is_not_applicable(tmp_path: Path) -> None:
    """Modelled: NCCL_IB_DISABLE=1 reported by NCCL on one host, rings over SHM."""
    log = ("host0:100:100 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
           "host0:100:100 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
           "host0:100:120 [0] NCCL INFO Channel 00 : 0[1000] -> 1[2000] via SHM/direct/direct\n")
    r = paste_checks(tmp_path, log, CHECK)[CHECK]
    assert r.status == "not-applicable" and "NCCL_IB_DISABLE" in r.message


@pytest.mark.parametrize("prefix", ["417", "418", "58", "94"])
def test_nccl_without_libibverbs_is_not_applicable(prefix: str) -> None:
    """Real (nccl#340, nccl#857 and two more threads): NCCL could not open libibverbs on one host, so it can use no
    RDMA device; 417 and 418 write it as `misc/ibvwrap.cc:63 NCCL WARN` (NCCL 2.6/2.10), 58 and 94 as INFO."""
    r = capture_checks(prefix, CHECK)[CHECK]
    assert r.status == "not-applicable" and "no InfiniBand/RoCE device" in r.message
    assert any("Failed to open libibverbs" in line for line in r.actual)


def test_modelled_failed_verbs_probe_beside_hcas_in_use_is_not_local(tmp_path: Path) -> None:
    """Modelled counter-example: a failed verbs probe on one rank, while NCCL names the HCAs it uses."""
    log = ("host0:100:100 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
           "host0:101:101 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n")
    r = paste_checks(tmp_path, log, CHECK)[CHECK]
    assert r.status != "not-applicable" or "no InfiniBand/RoCE device" not in r.message


def test_near_nics_stay_ok_where_the_log_shows_one_host() -> None:
    """Real (nccl#901, capture 360): four ranks on one host, and GPU0/GPU1 share mlx5_0 at PXB: a near NIC per GPU
    is right whatever traffic the host carries (ok over the 2 of 8 rows shown), as the matrix alone says (290)."""
    r = capture_checks("360", CHECK)[CHECK]
    assert r.status == "ok" and "mlx5_0 PXB" in r.message
    assert r.coverage.shown == ("GPU0", "GPU1") and r.coverage.total == 8


def test_modelled_far_nics_with_a_one_host_log_stay_not_applicable(tmp_path: Path) -> None:
    """Modelled counter-example: the nccl#1343 matrix (NICs near only some GPUs) with a one-host NCCL log: the far
    GPUs matter only between nodes, so the one-host log still makes the check not-applicable."""
    log = ("host0:100:100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 1 datatype 6 op 0 "
           "root 0 comm 0x1 [nranks=2] stream 0x1\n"
           "host0:101:101 [1] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 1 datatype 6 op 0 "
           "root 0 comm 0x2 [nranks=2] stream 0x2\n")
    r = paste_checks(tmp_path, NCCL_1343 + "\n" + log, CHECK)[CHECK]
    assert r.status == "not-applicable" and "one host" in r.message
