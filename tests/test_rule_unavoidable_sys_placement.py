"""Rules of IC-TOPOLOGY-PLACEMENT from the matrix (issue 28): GPUs outside an NVLink mesh of three or more put every
group with them on PCIe (issue, with no engine too); every pair SYS with every GPU shown on one NUMA node leaves
nothing to choose (not-an-issue); an engine group of every GPU crosses sockets by necessity (not-an-issue, blind 363,
402, 291); with no engine on a matrix with SYS pairs, a group stays on one socket or not by the engine's choice
(unknown: blind 325 and 243 want it, no blind expectation wants ok there).

Real pastes: 402 (club-3090#178), the Della README and cuda-samples#284 (two GPUs over SYS: not-an-issue), 09 (vllm#16336, HGX B200 with GPU2's NVLinks missing), 270 (vllm#6370, 8x A800 PCIe all SYS on node
0, rows cut), 243 (go-gpuallocator#17, all SYS over two nodes: unknown), 291 (nccl#1439, TP8 must cross),
325 (club-3090#46), 199 (kubernetes#53497) and 266 (nccl#667): SYS pairs, no engine (unknown),
180 and 60 (nothing crosses: ok). The engine cases and the bridged counter-example are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"


def test_a_size_that_must_cross_sockets_stays_information() -> None:
    # 291's TP8 must cross; its TP2/TP4 groups stay on one socket or not by the engine's choice (not shown): unknown.
    result = capture_checks("291", PLACEMENT)[PLACEMENT]
    assert result.status == "unknown"
    assert "TP8 must cross sockets (SYS)" in result.message and "TP4: 0,1,2,3 | 4,5,6,7" in result.message


def test_no_engine_on_a_matrix_with_sys_pairs_is_unknown() -> None:
    # 325 (club-3090#46, GPU0 alone on the other socket), 199 (kubernetes#53497, PIX pairs over two sockets),
    # 266 (nccl#667): a group of some size stays on one socket only if the engine takes the right GPUs.
    for prefix in ("325", "199", "266"):
        result = capture_checks(prefix, PLACEMENT)[PLACEMENT]
        assert result.status == "unknown", prefix
        assert "depending on which GPUs the engine takes" in result.message, prefix
        assert "command line (TP size" in result.hint, prefix
    assert "TP2: 1,2 | 3,4" in capture_checks("325", PLACEMENT)[PLACEMENT].message


def test_modelled_engine_on_a_same_socket_pair_is_ok(tmp_path: Path) -> None:
    # Modelled counter-example: the same two-socket box with the engine's group shown on one socket.
    text = _BOX + "$ CUDA_VISIBLE_DEVICES=2,3 vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2\n"
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "ok" and "uses the closest paths available" in result.message


def test_a_gpu_outside_the_nvlink_mesh_puts_its_groups_on_pcie() -> None:
    result = capture_checks("09", PLACEMENT)[PLACEMENT]
    assert result.status == "issue" and result.subjects == ("GPU2",)
    assert "(NODE/SYS instead)" in result.message and "TP4 without GPU2" in result.message


def test_no_crossing_stays_ok() -> None:
    for prefix in ("180", "60"):
        result = capture_checks(prefix, PLACEMENT)[PLACEMENT]
        assert result.status == "ok" and "no group size needs to cross sockets" in result.message, prefix


_BOX = """\
$ nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      PHB     SYS     SYS     0-31    0               N/A
GPU1    PHB      X      SYS     SYS     0-31    0               N/A
GPU2    SYS     SYS      X      PHB     32-63   1               N/A
GPU3    SYS     SYS     PHB      X      32-63   1               N/A
"""


def test_modelled_engine_on_every_gpu_crosses_by_necessity(tmp_path: Path) -> None:
    text = _BOX + "$ vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4\n"
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue" and "uses all 4 GPUs: crossing sockets is unavoidable (info)" in result.message


def test_modelled_bridged_pair_beside_cards_without_a_bridge_is_no_mesh_fault(tmp_path: Path) -> None:
    text = ("root@host:/# python3 -m sglang.check_env\nCUDA available: True\nGPU 0,1,2: NVIDIA RTX A6000\n"
            "NVIDIA Topology:\n"
            "        GPU0    GPU1    GPU2    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
            "GPU0     X      NV4     PHB     0-31    0               N/A\n"
            "GPU1    NV4      X      PHB     0-31    0               N/A\n"
            "GPU2    PHB     PHB      X      0-31    0               N/A\n")
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "ok", result.message


def test_flat_sys_on_one_node_leaves_nothing_to_choose() -> None:
    # 270 (vllm#6370, 8x A800 PCIe, three rows shown, all SYS on node 0); 243 (two nodes: NUMA separates, unknown).
    result = capture_checks("270", PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue" and result.coverage.shown == ("GPU0", "GPU1", "GPU2")
    assert result.coverage.total == 8
    assert capture_checks("243", PLACEMENT)[PLACEMENT].status == "unknown"


_FLAT = """\
$ nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      SYS     SYS     SYS     0-31    0               N/A
GPU1    SYS      X      SYS     SYS     0-31    0               N/A
GPU2    SYS     SYS      X      SYS     32-63   1               N/A
GPU3    SYS     SYS     SYS      X      32-63   1               N/A
"""


def test_modelled_engine_pair_across_nodes_of_an_all_sys_box_is_not_called_unavoidable(tmp_path: Path) -> None:
    across = "CUDA_VISIBLE_DEVICES=0,2 vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2\n"
    assert paste_checks(tmp_path, _FLAT + "$ " + across, PLACEMENT)[PLACEMENT].status == "unknown"
    same = "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2\n"
    assert paste_checks(tmp_path, _FLAT + "$ " + same, PLACEMENT)[PLACEMENT].status == "ok"


# https://github.com/jdh4/della-gpu-A100/blob/main/README.md ("Another approach": a two-GPU Della node, each GPU on
# its own socket and NUMA node, with an mlx5 NIC each), the fenced matrix verbatim.
DELLA_TWO_GPUS = (
    "$ nvidia-smi topo -m\n"
    "\tGPU0\tGPU1\tmlx5_0\tmlx5_1\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tSYS\tNODE\tSYS\t0-63\t0\n"
    "GPU1\tSYS\t X \tSYS\tNODE\t64-127\t1\n"
    "mlx5_0\tNODE\tSYS\t X \tSYS\t\t\n"
    "mlx5_1\tSYS\tNODE\tSYS\t X \t\t\n")


# https://github.com/NVIDIA/cuda-samples/issues/284 (issue body, two L4 on NUMA nodes 0 and 2), the matrix verbatim.
L4_TWO_NODES = (
    "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tSYS\t0-7,32-39\t0\t\tN/A\n"
    "GPU1\tSYS\t X \t16-23,48-55\t2\t\tN/A\n")


def test_two_gpus_over_sys_leave_no_better_pair(tmp_path: Path) -> None:
    # 402 (club-3090#178, two RTX 3090 on two sockets, GPU0's NUMA node N/A) and the Della node: a TP group of two is
    # both GPUs whichever the engine takes, so the SYS path is unavoidable (not-an-issue), with no engine shown.
    result = capture_checks("402", PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue" and "no better pair exists" in result.message
    # cuda-samples#284: the bare matrix (no command line above it), two L4 on NUMA nodes 0 and 2.
    for text in (DELLA_TWO_GPUS, L4_TWO_NODES):
        result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
        assert result.status == "not-an-issue" and set(result.subjects) == {"GPU0", "GPU1"}, result.message
        assert "no better pair exists" in result.message


def test_modelled_two_gpus_on_one_socket_stay_ok_and_three_gpus_stay_unknown(tmp_path: Path) -> None:
    # Modelled counter-examples: two GPUs meeting at a host bridge cross nothing (ok, as 401); with a third GPU a
    # same-socket pair exists beside the SYS ones, so the engine's choice decides (unknown).
    phb = ("$ nvidia-smi topo -m\n        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
           "GPU0     X      PHB     0-31    0\nGPU1    PHB      X      0-31    0\n")
    assert paste_checks(tmp_path, phb, PLACEMENT)[PLACEMENT].status == "ok"
    three = ("$ nvidia-smi topo -m\n        GPU0    GPU1    GPU2    CPU Affinity    NUMA Affinity\n"
             "GPU0     X      PHB     SYS     0-31    0\nGPU1    PHB      X      SYS     0-31    0\n"
             "GPU2    SYS     SYS      X      32-63   1\n")
    assert paste_checks(tmp_path, three, PLACEMENT)[PLACEMENT].status == "unknown"
