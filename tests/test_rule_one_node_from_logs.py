"""One node from the engine's and NCCL's own lines (ServingLog.one_node, ServingLog.shared_shm): vLLM's "Detected 1
nodes in the distributed environment", NCCL's `nNodes 1`, and a communicator whose every rank logs from one host
name. IC-NIC-GPU-AFFINITY reads them as not applicable; CTR-IPC-ISOLATION reads vLLM's count (a shared-memory
test) as one IPC namespace (issue 28)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

NIC = "IC-NIC-GPU-AFFINITY"
IPC = "CTR-IPC-ISOLATION"

# https://github.com/vllm-project/vllm/issues/6732 (comment by xiejibing): an 8-rank vLLM pod, NCCL's topology line.
VLLM_6732 = (
    "h100-kickoff-llama-70b-chat-20230328-bcf75c4f6-gn6nd:845:845 [7] NCCL INFO comm 0xb134030 rank 7 nRanks 8 "
    "nNodes 1 localRanks 8 localRank 7 MNNVL 0\n"
    "h100-kickoff-llama-70b-chat-20230328-bcf75c4f6-gn6nd:774:774 [0] NCCL INFO Channel 04/24 :    0   3   1   2   4"
    "   7   5   6\n")

# https://github.com/deepseek-ai/DeepEP/issues/106 (comment by idealboy): one host's ranks of a 16-rank job, one
# NCCL line per rank (the comment flattens them onto one line).
DEEPEP_106 = "".join(
    f"VM-17-82-centos:{pid}:{tid} [{r}] NCCL INFO comm {comm} rank {r} nranks 16 cudaDev {r} nvmlDev {r} busId {bus} "
    "commId 0x599e30b8362d17c - Init COMPLETE\n"
    for pid, tid, r, comm, bus in (
        (11983, 12550, 5, "0x5648d7156820", "9c000"), (11979, 12555, 1, "0x5581611328d0", "16000"),
        (11978, 12548, 0, "0x5630f872fe00", "3000"), (11982, 12551, 4, "0x558ec7732a40", "84000"),
        (11984, 12553, 6, "0x563b8bdea630", "b6000")))

# https://github.com/NVIDIA/nccl-tests/issues/128 (issue body): an 8-rank run over two hosts, four ranks each.
NCCL_TESTS_128 = """\
SH-IDC1-10-142-6-130:75326:75326 [1] NCCL INFO comm 0x7fa2dc000d00 rank 5 nranks 8 cudaDev 1 busId 46000 - Destroy COMPLETE
SH-IDC1-10-142-5-57:10776:10776 [1] NCCL INFO comm 0x7f2da0000d00 rank 1 nranks 8 cudaDev 1 busId 25000 - Destroy COMPLETE
SH-IDC1-10-142-6-130:75328:75328 [0] NCCL INFO comm 0x7f8654000d00 rank 4 nranks 8 cudaDev 0 busId 41000 - Destroy COMPLETE
SH-IDC1-10-142-5-57:10777:10777 [0] NCCL INFO comm 0x7f0480000d00 rank 0 nranks 8 cudaDev 0 busId 1f000 - Destroy COMPLETE
SH-IDC1-10-142-5-57:10778:10778 [3] NCCL INFO comm 0x7f427c000d00 rank 3 nranks 8 cudaDev 3 busId 55000 - Destroy COMPLETE
SH-IDC1-10-142-6-130:75325:75325 [3] NCCL INFO comm 0x7fce84000d00 rank 7 nranks 8 cudaDev 3 busId 69000 - Destroy COMPLETE
SH-IDC1-10-142-5-57:10775:10775 [2] NCCL INFO comm 0x7fa89c000d00 rank 2 nranks 8 cudaDev 2 busId 50000 - Destroy COMPLETE
SH-IDC1-10-142-6-130:75327:75327 [2] NCCL INFO comm 0x7f6428000d00 rank 6 nranks 8 cudaDev 2 busId 63000 - Destroy COMPLETE
"""


def _complete_comm(host: str, nranks: int) -> str:
    return "".join(f"{host}:{100 + r}:{100 + r} [{r}] NCCL INFO comm 0x55e4ee26b07{r} rank {r} nranks {nranks} "
                   f"cudaDev {r} busId {r + 1}b000 - Init COMPLETE\n" for r in range(nranks))


def test_every_rank_of_a_communicator_on_one_host_is_one_node() -> None:
    """Real (TensorRT-LLM#953, capture 493): ranks 0-3 of `nranks 4` all log from host dc."""
    r = capture_checks("493", NIC)[NIC]
    assert r.status == "not-applicable" and "one node" in r.message
    assert any("nranks 4" in line for line in r.actual)


def test_vllm_node_count_is_one_node() -> None:
    """Real (HAMi-core#261, capture 487): vLLM's "Detected 1 nodes" from both TP workers; only rank 0's NCCL lines."""
    r = capture_checks("487", NIC)[NIC]
    assert r.status == "not-applicable"
    assert any("Detected 1 nodes" in line for line in r.actual)


def test_nccl_nnodes_one_is_one_node(tmp_path: Path) -> None:
    """Real (vllm#6732): NCCL's `nRanks 8 nNodes 1` line of an 8-GPU pod."""
    assert parse_serving_log(VLLM_6732).one_node()
    assert paste_checks(tmp_path, VLLM_6732, NIC)[NIC].status == "not-applicable"


def test_nnodes_one_in_a_second_capture() -> None:
    """Real (nccl#1358, capture 381): two ranks, `nRanks 2 nNodes 1`."""
    assert capture_checks("381", NIC)[NIC].status == "not-applicable"


def test_half_the_ranks_of_a_job_on_one_host_is_not_one_node(tmp_path: Path) -> None:
    """Real (DeepEP#106): one host's ranks of a 16-rank job: the cut log of a multi-node job shows one host name."""
    assert parse_serving_log(DEEPEP_106).one_node() == ()
    assert paste_checks(tmp_path, DEEPEP_106, NIC)[NIC].status == "unknown"


def test_two_host_names_are_not_one_node(tmp_path: Path) -> None:
    """Real (nccl-tests#128): every rank of `nranks 8` is shown, from two hosts."""
    assert parse_serving_log(NCCL_TESTS_128).one_node() == ()
    assert paste_checks(tmp_path, NCCL_TESTS_128, NIC)[NIC].status == "unknown"


def test_nnodes_above_one_is_not_one_node() -> None:
    """Real (capture 57): `nRanks 3 nNodes 3`, one host name shown (redacted)."""
    log = parse_serving_log(next(Path(__file__).parent.joinpath("data", "captures").glob("57-*.txt")).read_text())
    assert log.one_node() == ()


def test_a_communicator_smaller_than_the_engine_world_is_not_one_node() -> None:
    """Modelled: TP 4 x PP 2 in vLLM's config line; the complete 4-rank communicator is one TP group only."""
    text = ("INFO 06-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.6.0) with config: "
            "tensor_parallel_size=4, pipeline_parallel_size=2, enforce_eager=False\n" + _complete_comm("node-a", 4))
    assert parse_serving_log(text).one_node() == ()
    assert parse_serving_log(_complete_comm("node-a", 4)).one_node()


def test_vllm_node_count_above_one_is_not_one_node() -> None:
    """Modelled: vLLM counts two nodes; an NCCL `nNodes 1` line of its TP group does not outweigh it."""
    text = ("(Worker pid=7) DEBUG 08-09 20:55:03 [distributed/parallel_state.py:1689] Detected 2 nodes in the "
            "distributed environment\n"
            "node-a:7:7 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n")
    log = parse_serving_log(text)
    assert log.one_node() == () and log.shared_shm() == ()


def test_vllm_one_node_of_two_ranks_shares_one_ipc_namespace() -> None:
    """Real (HAMi-core#261, capture 487): world_size=2 and "Detected 1 nodes": vLLM's shared-memory test passed."""
    r = capture_checks("487", IPC)[IPC]
    # Its NCCL host is the pod test-7b94f88dfd-dxs9c: the pod's one IPC namespace holds both ranks (h62f).
    assert r.status == "ok" and "IPC namespace" in r.message, r.message


def test_vllm_one_node_of_one_rank_says_nothing_of_ipc(tmp_path: Path) -> None:
    """Real (a vLLM DEBUG log committed to a public repository, world_size=1): one rank opens nothing shared."""
    text = ("DEBUG 08-06 10:17:19 [parallel_state.py:945] world_size=1 rank=0 local_rank=0 distributed_init_method="
            "tcp://10.129.4.27:47761 backend=nccl\n"
            "DEBUG 08-06 10:17:19 [parallel_state.py:996] Detected 1 nodes in the distributed environment\n")
    log = parse_serving_log(text)
    assert log.one_node() and log.shared_shm() == ()
    assert paste_checks(tmp_path, text, IPC)[IPC].status != "ok"


# https://github.com/vllm-project/vllm/issues/18567 (comment by Rexhaif): vLLM's NCCL sanity script under torchrun.
VLLM_18567 = """\
❯ NCCL_DEBUG=TRACE torchrun --nproc-per-node=4 test.py
h14-01:2029998:2029998 [0] NCCL INFO Bootstrap: Using ibp35s0:10.28.98.73<0>
h14-01:2029998:2029998 [0] NCCL INFO cudaDriverVersion 12080
h14-01:2029999:2029999 [1] NCCL INFO Bootstrap: Using ibp35s0:10.28.98.73<0>
"""

# https://github.com/vllm-project/vllm/issues/11560 (comment by Tian14267): `--nnodes 1` with a c10d rendezvous.
VLLM_11560 = """\
(fffan_debug) root@ubuntu:/data/fffan# NCCL_DEBUG=TRACE torchrun --nnodes 1 --nproc-per-node=2 --rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR test_vllm.py
ubuntu:268443:268443 [0] NCCL INFO Bootstrap : Using bond0:10.68.27.12<0>
"""


def test_torchrun_without_nnodes_is_one_node(tmp_path: Path) -> None:
    """Real (vllm#18567): torchrun's default `--nnodes` is 1, so its four ranks start on this node."""
    log = parse_serving_log(VLLM_18567)
    assert any("torchrun" in line for line in log.one_node())
    assert paste_checks(tmp_path, VLLM_18567, NIC)[NIC].status == "not-applicable"


def test_torchrun_in_a_capture_is_one_node() -> None:
    """Real (vllm#5484, capture 486): `torchrun --nproc-per-node=2`, NCCL's bootstrap over Wi-Fi."""
    assert capture_checks("486", NIC)[NIC].status == "not-applicable"


def test_torchrun_nnodes_one_is_one_node() -> None:
    """Real (vllm#11560): `--nnodes 1` with a c10d rendezvous endpoint elsewhere is still one node."""
    assert parse_serving_log(VLLM_11560).one_node()


def test_torchrun_over_two_nodes_is_not_one_node() -> None:
    """Modelled: `--nnodes=2` (or an elastic `1:2`) may start ranks on another node; a variable says nothing."""
    for nnodes in ("--nnodes=2", "--nnodes 1:2", "--nnodes=$NNODES"):
        text = (f"$ torchrun {nnodes} --node-rank=0 --nproc-per-node=8 train.py\n"
                "node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
        assert parse_serving_log(text).one_node() == (), nnodes


def test_torchrun_is_not_vllm_shared_memory() -> None:
    """Modelled: torchrun's one node is not vLLM's shared-memory test: CTR-IPC-ISOLATION is not read from it."""
    text = ("$ torchrun --nproc-per-node=2 t.py\n"
            "INFO 06-01 10:00:00 parallel_state.py:900] world_size=2 rank=0 local_rank=0 "
            "distributed_init_method=env:// backend=nccl\n")
    log = parse_serving_log(text)
    assert log.one_node() and log.shared_shm() == ()


def test_disaggregated_serving_is_not_one_node() -> None:
    """Modelled: a vLLM prefill instance with a NIXL KV transfer counts one node for its own ranks, but its KV cache
    crosses to another node's decode instance over the NICs."""
    text = ("INFO 06-01 10:00:00 [api_server.py:1000] non-default args: {'model': 'm', 'kv_transfer_config': "
            "KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_both')}\n"
            "(Worker pid=7) DEBUG 06-01 10:00:05 [distributed/parallel_state.py:1689] Detected 1 nodes in the "
            "distributed environment\n")
    assert parse_serving_log(text).one_node() == ()
    no_kv = text.replace("'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_both')",
                         "'kv_transfer_config': None")
    assert parse_serving_log(no_kv).one_node()


def test_a_complete_group_beside_a_cut_pipeline_group_is_not_one_node() -> None:
    """Modelled: node A's log of TP 2 x PP 2 over two nodes, with no config line: its TP group (commId 0xa, ranks 0-1)
    is complete, but each pipeline group (commId 0xb, 0xc) shows only its `rank 0 nranks 2` (rank 1 is on node B)."""
    def line(rank: int, comm_id: str) -> str:
        return (f"node-a:10{rank}:10{rank} [{rank}] NCCL INFO comm 0x5{rank} rank {rank} nranks 2 cudaDev {rank} "
                f"busId {rank + 1}b000 commId {comm_id} - Init COMPLETE\n")
    tp_group = line(0, "0xa") + line(1, "0xa")
    assert parse_serving_log(tp_group).one_node()
    assert parse_serving_log(tp_group + line(0, "0xb") + line(0, "0xc")).one_node() == ()


def test_a_hostile_torchrun_line_is_read_in_linear_time() -> None:
    # Modelled: thousands of dash words after `torchrun` and no script; each flag has one parse, so the search ends.
    from stackaudit.facts.serving_logs import _TORCHRUN, KEY_PHRASES

    for line in ("torchrun " + "--a --b " * 4000, "torchrun " + "-a " * 6000 + "x", "torchrun " + "--a=-b " * 4000):
        assert KEY_PHRASES.search(line) is None and _TORCHRUN.search(line) is None
    assert _TORCHRUN.search("torchrun --nproc-per-node=2 --nnodes 1 test.py")
