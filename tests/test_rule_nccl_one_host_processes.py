"""One node from the NCCL log's own host names (ServingLog.one_host_processes, through ServingLog.one_node and
NcclNodes.one): a job of N ranks (`nranks N`, or the engine's TP x PP) whose NCCL lines come from N processes or more
on N CUDA devices or more, all under one host name. IC-NIC-GPU-AFFINITY and KVER-DMABUF read it as not applicable
(issue 28, blind PP)."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

NIC = "IC-NIC-GPU-AFFINITY"
DMABUF = "KVER-DMABUF"


def _line(host: str, pid: int, dev: int, text: str) -> str:
    return f"{host}:{pid}:{pid + 50} [{dev}] NCCL INFO {text}\n"


def test_two_pod_processes_of_a_two_rank_job_are_one_node_856() -> None:
    """Real (InternLM/xtuner#792, capture 856): `rank 1 nranks 2` from pid 228, and pid 227 on device 0, both on
    host demo-ai-xtuner-pod: both ranks are shown on it."""
    log = parse_serving_log(body("856"))
    assert log.nccl_pids == (227, 228) and log.comm_ranks == 2
    assert log.one_node() and "demo-ai-xtuner-pod" in log.one_node()[0]
    r = capture_checks("856", NIC, DMABUF)
    assert r[NIC].status == "not-applicable" and r[DMABUF].status == "not-applicable"


def test_two_ranks_of_a_vllm_tp2_job_are_one_node_349() -> None:
    """Real (vllm#9920, capture 349): rank 0's Init COMPLETE line and rank 1's SHM channels, pids 23458 and 23541 on
    devices 0 and 1 of one host."""
    assert parse_serving_log(body("349")).one_node()
    assert capture_checks("349", DMABUF)[DMABUF].status == "not-applicable"


def test_four_ranks_of_collective_traces_are_one_node_360() -> None:
    """Real (NVIDIA/nccl#901, capture 360): `[nranks=4]` collective lines from four processes on devices 0-3."""
    log = parse_serving_log(body("360"))
    assert len(log.nccl_pids) == 4 and log.one_node()
    assert capture_checks("360", DMABUF)[DMABUF].status == "not-applicable"


def test_two_rtx5090_ranks_are_one_node_56() -> None:
    """Real (NVIDIA/nccl#1637, capture 56): `rank 1 nranks 2` and rank 0's lines, pids 11326 and 11344 on devices 0
    and 1 of host localhost."""
    assert parse_serving_log(body("56")).one_node()


def test_a_cut_log_without_the_job_size_is_not_one_node_853() -> None:
    """Real (KellerJordan/modded-nanogpt#15, capture 853): five ranks of one host choose their network, but no line
    says how many ranks the job has: the others may sit on another host."""
    log = parse_serving_log(body("853"))
    assert len(log.nccl_pids) == 5 and log.comm_ranks == 0
    assert log.one_node() == ()


def test_three_of_eight_ranks_on_one_host_is_not_one_node(tmp_path: Path) -> None:
    """Modelled: `nranks 8`, but only three processes on three devices log from the host."""
    text = "".join(_line("node-a", 100 + r, r, f"comm 0x5{r} rank {r} nranks 8 cudaDev {r} busId {r + 1}b000 - "
                         "Init COMPLETE") for r in range(3))
    assert parse_serving_log(text).one_node() == ()
    assert paste_checks(tmp_path, text, NIC)[NIC].status == "unknown"
    whole = "".join(_line("node-a", 100 + r, r, f"comm 0x5{r} [nranks=8] stream 0x6{r}") for r in range(8))
    assert parse_serving_log(whole).one_node()


def test_two_runs_on_hosts_named_alike_are_not_one_node() -> None:
    """Modelled: two pasted runs of a two-node job, one rank per node on device 0 of hosts both named `localhost`:
    two pids, one device."""
    text = (_line("localhost", 4100, 0, "comm 0x51 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE")
            + _line("localhost", 5300, 0, "comm 0x52 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE"))
    log = parse_serving_log(text)
    assert len(log.nccl_pids) == 2 and log.one_node() == ()


def test_pipeline_groups_inside_a_larger_world_are_not_one_node() -> None:
    """Modelled: node A's two processes of TP 2 x PP 2 over two nodes, no config line: process 101 holds rank 1 of
    its TP group and rank 0 of its pipeline group, so groups of two ranks sit in a larger world."""
    tp = (_line("node-a", 100, 0, "comm 0x50 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE")
          + _line("node-a", 101, 1, "comm 0x51 rank 1 nranks 2 cudaDev 1 busId 2b000 - Init COMPLETE"))
    assert parse_serving_log(tp).one_node()
    pp = _line("node-a", 101, 1, "comm 0x61 rank 0 nranks 2 cudaDev 1 busId 2b000 - Init COMPLETE")
    assert parse_serving_log(tp + pp).one_node() == ()
    # Two communicators of the largest size told apart by their commId say the same.
    with_ids = tp.replace("- Init", "commId 0xa - Init") + _line(
        "node-a", 100, 0, "comm 0x60 rank 1 nranks 2 cudaDev 0 busId 1b000 commId 0xb - Init COMPLETE")
    assert parse_serving_log(with_ids).one_node() == ()


def test_more_ranks_in_the_engine_config_than_processes_is_not_one_node() -> None:
    """Modelled: vLLM's TP 2 x PP 2 config line beside two workers' NCCL lines of one host."""
    text = ("INFO 06-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.6.0) with config: "
            "tensor_parallel_size=2, pipeline_parallel_size=2, enforce_eager=False\n"
            + _line("node-a", 100, 0, "Using network Socket") + _line("node-a", 101, 1, "Using network Socket"))
    assert parse_serving_log(text).one_node() == ()
    assert parse_serving_log(text.replace("pipeline_parallel_size=2", "pipeline_parallel_size=1")).one_node()


def test_one_process_with_every_rank_of_its_run_is_still_one_communicator_628() -> None:
    """Real (NVIDIA/nccl#1706, capture 628): one nccl-tests process drives both GPUs of its run; its ranks 0 and 1 share a pid, which
    is one communicator, not two groups."""
    log = parse_serving_log(body("628"))
    assert len(log.nccl_pids) == 1 and log.one_node()
