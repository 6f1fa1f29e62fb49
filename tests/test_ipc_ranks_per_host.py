"""CTR-IPC-ISOLATION from a NCCL log of several named hosts (facts/serving_logs.ServingLog.ipc_group): each host's
ranks that NCCL joins over SHM or P2P share that host's IPC namespace, and NET joins the hosts.

NCCL opens SHM and P2P only between ranks that share one /dev/shm (transport/shm.cc, graph/paths.cc). Real pastes are
corpus captures (their headers name the threads); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks


def test_each_hosts_ranks_joined_over_p2p_share_its_namespace() -> None:
    # Real: corpus 775 (DeepSpeed on two hosts of four GPUs): ravg1038 joins ranks 0-3 and ravg1040 ranks 4-7 over
    # P2P/IPC; NET/IBext joins the hosts.
    r = capture_checks("775", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "on each of hosts" in r.message and "ravg1038" in r.message


def test_a_rank_reached_only_over_net_leaves_it_open(tmp_path: Path) -> None:
    # Modelled from 775: rank 7's P2P lines cut away and a NET line from rank 6 to rank 7 on the same host added. A
    # rank NCCL reaches only over NET may be cut off from its neighbours' /dev/shm (the fault the check looks for).
    text = "\n".join(line for line in body("775").splitlines() if "7[3] ->" not in line and "-> 7[3]" not in line)
    text += "\nravg1040:41359:41827 [2] NCCL INFO Channel 00/0 : 6[2] -> 7[3] via NET/IBext/0\n"
    r = paste_checks(tmp_path, text, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status != "ok", r.message


def test_a_ray_worker_joining_its_head_over_loopback_is_a_rank_on_the_heads_host() -> None:
    # Real: corpus 786 (vllm#14093): a Ray head container and a worker container that joins it at 127.0.0.1, each
    # with one GPU and its own private IPC namespace: NCCL sees one host (host network) and two /dev/shm devices.
    r = capture_checks("786", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "issue" and "headnode" in r.message and "workernode" in r.message


def test_a_ray_worker_joining_another_hosts_head_is_not_on_this_host(tmp_path: Path) -> None:
    # Modelled from 786: the worker joins its head at 10.0.0.1, another node's address: nothing shows the two
    # containers on one host.
    text = body("786").replace("--address=127.0.0.1:6379", "--address=10.0.0.1:6379")
    r = paste_checks(tmp_path, text, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status != "issue", r.message
