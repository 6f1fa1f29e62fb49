"""Rule: vLLM's message-queue handle (shm_broadcast.py `Handle(local_reader_ranks=[...], ...)`) with no remote
reader puts its writer and every reader on one shared-memory segment, so they share one IPC namespace
(ServingLog.shared_shm; CTR-IPC-ISOLATION ok where the handle holds the log's whole world; issue 28).

Real pastes: 739 (vllm#15340, eight ranks of a V0 engine), 371 (vllm#15255, two ranks of a V1 engine), vllm#11348
(the older `connect_ip`/`remote_subscribe_port` form, two pipeline groups' handles: not the whole world) and
vllm#16250 (a worker's reply queue, one reader: no group). The remote-reader and larger-world counter-examples are
modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

IPC = "CTR-IPC-ISOLATION"

# https://github.com/vllm-project/vllm/pull/11348 (comment by alllexx88, 2025-01-15): two worker processes each log
# the handle of their own group; the terminal wrapped each line inside `local_subscribe_port`, re-joined here.
VLLM_11348 = "".join(
    f"(VllmWorkerProcess pid={pid}) INFO 01-15 13:09:58 shm_broadcast.py:256] vLLM message queue communication "
    f"handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1], buffer_handle=(1, 4194304, 6, '{psm}'), "
    f"local_subscribe_port={port}, remote_subscribe_port=None)\n"
    for pid, psm, port in ((3222324, "psm_33fa8fd7", 59655), (3222326, "psm_7e28ad79", 35951)))

# https://github.com/vllm-project/vllm/issues/16250 (issue body by FanYaning): `-tp=4`, worker 0's own queue, read by
# the executor alone.
VLLM_16250 = (
    "(VllmWorker rank=0 pid=945959) INFO 04-08 10:00:12 [shm_broadcast.py:259] vLLM message queue communication "
    "handle: Handle(local_reader_ranks=[0], buffer_handle=(1, 10485760, 10, 'psm_5efb1fd0'), "
    "local_subscribe_addr='ipc:///tmp/a8678888-e263-49f7-ba63-5f7bcca67bd5', remote_subscribe_addr=None, "
    "remote_addr_ipv6=False)\n")


def test_eight_local_readers_share_one_ipc_namespace() -> None:
    r = capture_checks("739", IPC)[IPC]
    assert r.status == "ok" and "all 8 ranks" in r.message, r.message
    assert any("local_reader_ranks=[1, 2, 3, 4, 5, 6, 7]" in e for e in r.evidence)


def test_two_ranks_of_a_v1_engine_share_one_ipc_namespace() -> None:
    r = capture_checks("371", IPC)[IPC]
    assert r.status == "ok" and "all 2 ranks" in r.message, r.message


def test_the_older_handle_form_is_read() -> None:
    one = parse_serving_log(VLLM_11348.splitlines()[0])
    assert [n for n, _ in one.mq_shared] == [2] and one.shm_ranks() == 2


def test_two_groups_handles_are_not_the_whole_world() -> None:
    # Two handles of two ranks each, from two writers: pipeline stages, each one part of the world.
    log = parse_serving_log(VLLM_11348)
    assert len(log.mq_shared) == 2 and log.shared_shm() == ()


def test_a_queue_with_one_reader_is_no_group() -> None:
    assert parse_serving_log(VLLM_16250).mq_shared == ()


def test_remote_readers_say_nothing(tmp_path: Path) -> None:
    # Modelled: readers 1-3 on this node, the rest on another (remote_subscribe_addr set).
    remote = VLLM_16250.replace("local_reader_ranks=[0]", "local_reader_ranks=[1, 2, 3]").replace(
        "remote_subscribe_addr=None", "remote_subscribe_addr='tcp://10.0.0.2:41235'")
    assert parse_serving_log(remote).mq_shared == ()
    assert paste_checks(tmp_path, remote, IPC)[IPC].status == "unknown"


def test_a_handle_smaller_than_the_world_says_nothing() -> None:
    # Modelled: the engine's config asks for eight ranks; the handle holds four of them.
    text = ("INFO 04-08 10:00:01 [config.py:1] Initializing an LLM engine with config: tensor_parallel_size=8, "
            "pipeline_parallel_size=1\n"
            + VLLM_16250.replace("local_reader_ranks=[0]", "local_reader_ranks=[1, 2, 3]"))
    log = parse_serving_log(text)
    assert [n for n, _ in log.mq_shared] == [4] and log.shared_shm() == ()
