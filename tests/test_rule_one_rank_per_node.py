"""One rank on each node of the job, never from one communicator of an engine (facts/parallelism.one_rank_per_node;
issue 28, blind LL run: corpus 782, 796).

A job with one rank per node has no GPU pair inside a host: IC-P2P-FUNCTIONAL is not applicable, and IC-NCCL-ENV's
P2P settings cost nothing. An engine's TP group placed one rank a node is IC-TOPOLOGY-PLACEMENT's issue (blind 1611):
every layer's all-reduce crosses the network. The source must show it for the whole job: an engine's
command whose TP x PP over `--nnodes` is one per node, or NCCL's `nRanks N nNodes N` for a communicator that holds the
job's world. An engine's pipeline communicator of two ranks over two nodes is one group of the job, not the job.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

_CHECKS = ("IC-P2P-FUNCTIONAL", "IC-TOPOLOGY-PLACEMENT")

# https://github.com/sgl-project/sglang/issues/27949 (issue body): the launch block for four DGX Spark nodes, verbatim.
SGLANG_27949 = """\
python3 -m sglang.launch_server \\
  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 \\
  --tp 4 --nnodes 4 --node-rank N --dist-init-addr <rank0>:29500 \\
  --host 127.0.0.1 --port 8890 --attention-backend triton \\
  --context-length 4096 --max-running-requests 1
"""

# https://github.com/sgl-project/sglang/issues/12450 (issue body): node 1's command, verbatim: TP 4 over two nodes.
SGLANG_12450 = """\
python3 -m sglang.launch_server --model-path /data2/Qwen3-32B --tensor-parallel-size 4 --host 0.0.0.0 --port 30001 --mem-fraction-static 0.9  --nnodes 2 --node-rank 0 --dist-init-addr 10.121.129.5:30000
"""

# Modelled: a plain NCCL program's communicator of four ranks on two nodes, two on each.
TWO_PER_NODE = """\
gpu-a01:9001:9001 [0] NCCL INFO comm 0x55d0c0a0 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0
gpu-a01:9002:9002 [1] NCCL INFO comm 0x55d0c0b0 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0
"""


def test_nccl_communicator_of_one_rank_per_node() -> None:
    """Real (capture 57, nccl-tests#373): `rank 2 nRanks 3 nNodes 3 localRanks 1` of a plain NCCL program: no GPU pair
    shares a host, and NCCL_P2P_LEVEL=LOC loses no P2P path."""
    r = capture_checks("57", "IC-NCCL-ENV", *_CHECKS)
    assert r["IC-NCCL-ENV"].status == "not-an-issue" and "nNodes 3 localRanks 1" in r["IC-NCCL-ENV"].message
    for check in _CHECKS:
        assert r[check].status == "not-applicable" and "one rank on each node" in r[check].message, check


def test_command_with_one_rank_per_node() -> None:
    """Real (capture 796, sglang TP 16 over --nnodes 16): one rank on each of the 16 nodes."""
    r = capture_checks("796", *_CHECKS)
    p2p, placement = r["IC-P2P-FUNCTIONAL"], r["IC-TOPOLOGY-PLACEMENT"]
    assert p2p.status == "not-applicable" and "runs TP 16 over --nnodes 16: one rank on each node" in p2p.message
    # The TP group itself is placed over the network (blind 1611's reading): every layer's all-reduce crosses it.
    assert placement.status == "issue" and "TP 16 over --nnodes 16: one rank on each node" in placement.message


def test_command_of_four_one_gpu_nodes(tmp_path: Path) -> None:
    """Real (sglang#27949): TP 4 over four DGX Spark nodes."""
    r = paste_checks(tmp_path, SGLANG_27949, *_CHECKS)
    p2p, placement = r["IC-P2P-FUNCTIONAL"], r["IC-TOPOLOGY-PLACEMENT"]
    assert p2p.status == "not-applicable" and "over --nnodes 4: one rank on each node" in p2p.message
    assert placement.status == "issue" and "all-reduce crosses" in placement.message


def test_command_with_two_ranks_per_node(tmp_path: Path) -> None:
    """Real counter-example (sglang#12450): TP 4 over two nodes puts two ranks on each, a pair inside each host."""
    r = paste_checks(tmp_path, SGLANG_12450, *_CHECKS)
    for check in _CHECKS:
        assert r[check].status != "not-applicable", check


def test_an_engines_pipeline_communicator_is_not_the_job() -> None:
    """Real counter-example (capture 784, vllm#8447): vLLM TP 8 x PP 2 over two nodes logs `nRanks 2 nNodes 2
    localRanks 1` for its pipeline group; the log does not show the job's world, so it is not one rank per node."""
    r = capture_checks("784", *_CHECKS)
    for check in _CHECKS:
        assert r[check].status == "unknown", check


def test_two_ranks_per_node_in_nccl(tmp_path: Path) -> None:
    """Modelled counter-example: `nRanks 4 nNodes 2 localRanks 2`."""
    r = paste_checks(tmp_path, TWO_PER_NODE, *_CHECKS)
    for check in _CHECKS:
        assert r[check].status != "not-applicable", check


# Modelled on capture 782's lines: a cut log of two nodes of eight GPUs, whose same-place GPUs (rank 7 and rank 15,
# both at bus 1a000) meet over the network; the ranks of each node are not shown.
SAME_PLACE_GPUS = """\
node-a:5325:5338 [7] NCCL INFO Channel 00 : 7[1a000] -> 15[1a000] [send] via NET/IB/0
node-b:7432:7450 [7] NCCL INFO Channel 00 : 7[1a000] -> 15[1a000] [receive] via NET/IB/0
"""

# Modelled on capture 1250's lines (NCCL before 2.5 printed the CUDA device, not the bus ID): two ranks of one host,
# each process given its own GPU as device 0, over the socket transport (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1).
DEVICE_INDEX = """\
worker:101:140 [0] NCCL INFO Ring 00 : 0[0] -> 1[0] via NET/Socket/0
worker:102:141 [0] NCCL INFO Ring 00 : 1[0] -> 0[0] via NET/Socket/0
"""


def test_nccl_ranks_on_one_gpu_bus_id() -> None:
    """Real (capture 782, nccl#899): the channel lines put ranks 0 and 1 on bus 1a000 (`0[1a000] -> 1[1a000] via
    NET/IB/0`); NCCL refuses two ranks of one communicator on one GPU, so each host holds one rank."""
    r = capture_checks("782", *_CHECKS)
    for check in _CHECKS:
        assert r[check].status == "not-applicable", check
        assert "one PCI bus ID" in r[check].message and "0[1a000] -> 1[1a000]" in r[check].message, check


def test_same_bus_id_of_a_cut_log_is_not_the_job(tmp_path: Path) -> None:
    """Modelled counter-example: ranks 7 and 15 on one bus ID are two nodes' same-place GPUs; ranks 0 to 6 are not
    shown, so the log does not settle one rank per node."""
    r = paste_checks(tmp_path, SAME_PLACE_GPUS, *_CHECKS)
    for check in _CHECKS:
        assert r[check].status != "not-applicable", check


def test_device_index_in_brackets_is_not_a_bus_id(tmp_path: Path) -> None:
    """Modelled counter-example: `0[0] -> 1[0]` names CUDA device 0 of each process, not one GPU."""
    r = paste_checks(tmp_path, DEVICE_INDEX, *_CHECKS)
    for check in _CHECKS:
        assert r[check].status != "not-applicable", check
