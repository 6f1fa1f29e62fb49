"""IC-NIC-GPU-AFFINITY from NCCL's own path dump (issue 28, runs I-K).

NCCL's path dump (`NCCL INFO GPU/4B000 :… NET/0 (4/12.5/PXB) …`, graph/paths.cc) is NCCL's reading of the NIC
columns of `topo -m`, judged by the matrix's rule: near NETs for every GPU listed are ok whatever hosts the log shows;
otherwise ranks on one host make it not-applicable (placement matters only between nodes); between nodes a far NET beside near ones is an issue and near NETs for every GPU listed are ok.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

CHECK = "IC-NIC-GPU-AFFINITY"

# https://github.com/NVIDIA/nccl/issues/879 (two nodes of 8 GPUs; the path dump lines of worker 0, verbatim)
NCCL_879 = """\
resnet-p-worker-0:195626:198757 [0] NCCL INFO GPU/49000 :GPU/16000 (2/264.000000/NVL) GPU/10000 (2/264.000000/NVL) GPU/49000 (0/5000.000000/LOC) GPU/4D000 (2/264.000000/NVL) GPU/8F000 (2/264.000000/NVL) GPU/8A000 (2/264.000000/NVL) GPU/C6000 (2/264.000000/NVL) GPU/CA000 (2/264.000000/NVL) CPU/0 (3/24.000000/PHB) CPU/1 (4/9.000000/SYS) NET/0 (6/24.000000/PHB) NET/1 (6/24.000000/PHB) NET/2 (4/24.000000/PXB) NET/3 (4/24.000000/PXB) NET/4 (7/9.000000/SYS) NET/5 (7/9.000000/SYS) NET/6 (7/9.000000/SYS) NET/7 (7/9.000000/SYS)
resnet-p-worker-0:195626:198757 [0] NCCL INFO GPU/4D000 :GPU/16000 (2/264.000000/NVL) GPU/10000 (2/264.000000/NVL) GPU/49000 (2/264.000000/NVL) GPU/4D000 (0/5000.000000/LOC) GPU/8F000 (2/264.000000/NVL) GPU/8A000 (2/264.000000/NVL) GPU/C6000 (2/264.000000/NVL) GPU/CA000 (2/264.000000/NVL) CPU/0 (3/24.000000/PHB) CPU/1 (4/9.000000/SYS) NET/0 (6/24.000000/PHB) NET/1 (6/24.000000/PHB) NET/2 (4/24.000000/PXB) NET/3 (4/24.000000/PXB) NET/4 (7/9.000000/SYS) NET/5 (7/9.000000/SYS) NET/6 (7/9.000000/SYS) NET/7 (7/9.000000/SYS)
"""

# Modelled: two hosts' path dumps, one GPU with a PXB NET and one whose nearest NET is across the CPUs (SYS).
TWO_HOSTS_ONE_FAR = """\
node-a:100:120 [0] NCCL INFO GPU/1A000 :GPU/1A000 (0/5000.000000/LOC) GPU/DB000 (4/10.000000/SYS) NET/0 (4/24.000000/PXB) NET/1 (7/10.000000/SYS)
node-a:101:121 [1] NCCL INFO GPU/DB000 :GPU/1A000 (4/10.000000/SYS) GPU/DB000 (0/5000.000000/LOC) NET/0 (7/10.000000/SYS)
node-b:200:220 [0] NCCL INFO Channel 00/0 : 2[0] -> 3[1] via SHM/direct/direct
"""

# Modelled: the same far GPU in one host's log: placement does not bear on traffic inside the host.
ONE_HOST_ONE_FAR = "\n".join(TWO_HOSTS_ONE_FAR.splitlines()[:2]) + "\n"


def test_nccl_path_dump_of_pods_with_pxb_nets_is_ok() -> None:
    """nccl#1511: two pods, each GPU's nearest NETs PXB in NCCL's own dump, no topo -m."""
    got = capture_checks("384", CHECK)[CHECK]
    assert got.status == "ok"
    assert "NET/0 PXB" in got.message
    assert got.coverage is not None and got.coverage.text() == "2 GPUs shown"


def test_near_nics_beside_a_one_host_nccl_log_are_ok() -> None:
    """nccl#901: GPU0 and GPU1 share mlx5_0 at PXB, and the NCCL log is of four ranks on one host: a near NIC per GPU
    is right whatever traffic the host carries, and a log's one host may be a cut of a multi-node job (blind 360)."""
    got = capture_checks("360", CHECK)[CHECK]
    assert got.status == "ok"
    assert "mlx5_0 PXB" in got.message


def test_near_nics_with_no_workload_shown_are_ok() -> None:
    """vllm#13989: a PIX NIC for each of the seven GPU rows shown."""
    got = capture_checks("368", CHECK)[CHECK]
    assert got.status == "ok"


def test_nccl_path_dump_of_one_worker_with_near_nets_is_ok(tmp_path: Path) -> None:
    """nccl#879: the lines shown are one worker's of a two-node job (the second node is the thread's): one host in
    the log, and each GPU listed has a PXB NET, which is ok whatever the log leaves out."""
    got = paste_checks(tmp_path, NCCL_879, CHECK)[CHECK]
    assert got.status == "ok"
    assert "GPU 49000" in str(got.actual)


def test_a_far_net_between_hosts_is_an_issue(tmp_path: Path) -> None:
    """Modelled: GPU DB000's nearest NET is SYS while GPU 1A000 has one at PXB, in a job across two hosts."""
    got = paste_checks(tmp_path, TWO_HOSTS_ONE_FAR, CHECK)[CHECK]
    assert got.status == "issue"
    assert "GPU db000" in got.message


def test_a_far_net_on_one_host_is_not_applicable(tmp_path: Path) -> None:
    """Modelled: the same far GPU in one host's log: the placement does not bear on traffic inside a host."""
    got = paste_checks(tmp_path, ONE_HOST_ONE_FAR, CHECK)[CHECK]
    assert got.status == "not-applicable"


# --- a pod that asks for an RDMA device ----------------------------------------------------------------------------


def test_pod_asking_for_an_rdma_device_with_every_nic_far_is_the_issue() -> None:
    # 2380 (NVIDIA/nccl#719): pod1 asks for 2 GPUs and `rdma/rdma_shared_device_a: 1`; its GPUs' nearest NIC is NODE.
    r = capture_checks("2380", "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"]
    assert r.status == "issue" and "rdma/rdma_shared_device_a: 1" in r.message and "GPU0 mlx5_2 NODE" in r.message
    # Another thread (748, an LWS spec asking for `rdma/hca_shared_devices_a`): no matrix, so nothing to place.
    assert capture_checks("748", "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"].status == "unknown"


def test_pod_without_an_rdma_device_or_with_a_near_nic_is_not_that_issue(tmp_path: Path) -> None:
    text = body("2380")
    # Modelled: the same pod without its RDMA device: whether its traffic leaves it is not shown.
    r = paste_checks(tmp_path, text.replace("        rdma/rdma_shared_device_a: 1\n", ""), "IC-NIC-GPU-AFFINITY")
    assert r["IC-NIC-GPU-AFFINITY"].status == "unknown"
    # Modelled: pod2's matrix alone, its GPUs with mlx5_1 at PXB: ok.
    near = text.split("pod1\n```", 1)[0] + "pod2\n```" + text.split("pod2\n```", 1)[1]
    assert paste_checks(tmp_path, near, "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"].status == "ok"
