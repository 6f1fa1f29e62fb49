"""CTR-IPC-ISOLATION over the NCCL lines of several processes that all log from one container's default hostname
(its id): the processes of one container share its IPC namespace, whichever CUDA device each names (a rank that
CUDA_VISIBLE_DEVICES gives one GPU calls it device 0). One process, or processes of two containers, settle nothing
by this rule.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: https://github.com/NVIDIA/nccl/issues/1504 (a comment by Noblezhong, 2024-11-06): PyTorch's example run on
# four GPUs inside one container, its NCCL_DEBUG=INFO start, cut.
NCCL_1504 = """\
678c7278cb2d:26023:26023 [0] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>
678c7278cb2d:26023:26023 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)
678c7278cb2d:26023:26023 [0] NCCL INFO cudaDriverVersion 12040
NCCL version 2.21.5+cuda12.4
678c7278cb2d:26024:26024 [1] NCCL INFO cudaDriverVersion 12040
678c7278cb2d:26024:26024 [1] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>
678c7278cb2d:26025:26025 [2] NCCL INFO cudaDriverVersion 12040
678c7278cb2d:26026:26026 [3] NCCL INFO cudaDriverVersion 12040
678c7278cb2d:26025:26025 [2] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>
678c7278cb2d:26026:26026 [3] NCCL INFO Bootstrap : Using eth0:172.17.2.7<0>
"""

# Real: https://github.com/NVIDIA/nccl/issues/331 (the issue body, gemfield, 2020-04-28): one process of container
# 71d46aa8dab5 whose peer in another container refuses it.
NCCL_331 = """\
71d46aa8dab5:5241:5262 [2] NCCL INFO Call to connect returned Connection refused, retrying
71d46aa8dab5:5241:5262 [2] NCCL INFO Call to connect returned Connection refused, retrying

71d46aa8dab5:5241:5262 [2] include/socket.h:390 NCCL WARN Connect to 172.17.0.3<37551> failed : Connection refused
71d46aa8dab5:5241:5262 [2] NCCL INFO bootstrap.cc:100 -> 2
"""

# Modelled: two containers' ids, one process each, on an unshown host: nothing shows them sharing a namespace.
TWO_CONTAINERS = """\
0f139cc8454d:9292:9292 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.15<0>
0f139cc8454d:9292:9292 [0] NCCL INFO cudaDriverVersion 12040
5b2e7d1a9c30:9293:9293 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.16<0>
5b2e7d1a9c30:9293:9293 [0] NCCL INFO cudaDriverVersion 12040
"""


def test_processes_of_one_container_share_it(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_1504, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok"
    assert "4 processes" in r.message and "678c7278cb2d" in r.message


def test_one_process_or_two_containers_settle_nothing(tmp_path: Path) -> None:
    for text in (NCCL_331, TWO_CONTAINERS):
        r = paste_checks(tmp_path, text, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
        assert "processes of one container" not in r.message, text


def test_corpus_1883_ddp_ranks_each_on_device_0() -> None:
    # NVIDIA/nccl#367: eight DDP ranks in container c6ad99331184, each given one GPU, all logging `[0]`.
    r = capture_checks("1883", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "c6ad99331184" in r.message
