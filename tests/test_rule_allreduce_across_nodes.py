"""IC-CUSTOM-ALLREDUCE over a TP group that spans nodes (corpus 1863, 1247).

vLLM's Ray executor warning that its TP size is bigger than the GPUs Ray reserves on a node (ServingLog.tp_beyond_node)
shows the TP group holds GPUs of several nodes (facts/parallelism.tp_group_across_nodes). vLLM's custom all-reduce
shares its buffers by CUDA IPC inside one node only and turns itself off for such a group: not applicable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CUSTOM_AR = "IC-CUSTOM-ALLREDUCE"

_WARN = ("WARNING {ts} [ray_utils.py:{line}] tensor_parallel_size=2 is bigger than a reserved number of GPUs (1 GPUs) "
         "in a node {node}. Tensor parallel workers can be spread out to 2+ nodes which can degrade the performance "
         "unless you have fast interconnect across nodes, like Infiniband. To resolve this issue, make sure you have "
         "more than 2 GPUs available at each node.")

# Lines of real pastes from three threads, each two nodes of one GPU under TP 2.
REAL = {
    # foundation-model-stack/fastsafetensors#36 (two DGX Spark nodes, vLLM V1 engine core).
    "fastsafetensors-36": "(EngineCore_DP0 pid=1088) INFO 12-17 23:27:50 [ray_utils.py:396] No current placement group "
    "found. Creating a new placement group.\n(EngineCore_DP0 pid=1088) " + _WARN.format(
        ts="12-17 23:27:50", line=207, node="9b520231c0732c57debefe20b1e67dd01e4d5fcf474c048cf68c4789") + "\n"
    "(EngineCore_DP0 pid=1088) " + _WARN.format(ts="12-17 23:27:50", line=207,
                                                node="d0f4203ca5a6bae7dd22660167c06fee09174319d19083318bb11815") + "\n",
    # ROCm/ROCm#5656 (two hosts of one Radeon AI PRO R9700 each).
    "rocm-5656": "vllm serve openai/gpt-oss-20b --enforce-eager --tensor-parallel 2 "
    "--distributed_executor_backend=\"ray\"\n(EngineCore_DP0 pid=742) " + _WARN.format(
        ts="11-12 11:11:49", line=227, node="105bc4e57711c6d8124de9ca4ea66c94df13653ce39ff1f0179e31c3") + "\n"
    "(EngineCore_DP0 pid=742) INFO 11-12 11:11:49 [ray_distributed_executor.py:179] use_ray_spmd_worker: True\n",
    # dougbtv's "vLLM at Home -- Distributed Inference with Fedora and a 50-Series GPU" (2025-05-09): a desktop's RTX
    # 5060 Ti and a server's RTX 3090 under one TP 2 group.
    "dougbtv-blog": "vllm serve microsoft/Phi-3.5-mini-instruct \\\n  --tensor-parallel-size 2 \\\n"
    "  --pipeline-parallel-size 1 \\\n  --gpu-memory-utilization 0.8 \\\n  --max-model-len 4096 \\\n"
    "  --host 0.0.0.0 \\\n  --trust-remote-code\n\n" + _WARN.format(
        ts="05-09 06:03:18", line=199, node="d97d078c6e6c301dafb330684dd1aede943dcbe95dabc32bfc3fa5c7") + "\n",
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_ray_warning_spans_nodes(tmp_path: Path, name: str) -> None:
    r = paste_checks(tmp_path, REAL[name], CUSTOM_AR)[CUSTOM_AR]
    assert r.status == "not-applicable", (name, r.message)
    assert "TP=2 while vLLM's Ray executor reserves 1 GPU(s) on a node" in r.message


def test_capture_1863() -> None:
    """Real (capture 1863, vllm-project/vllm#13521): `vllm serve ... --tensor-parallel-size 2` over two one-GPU nodes."""
    r = capture_checks("1863", CUSTOM_AR)[CUSTOM_AR]
    assert r.status == "not-applicable" and "spans nodes" in r.message


def test_modelled_ray_run_without_the_warning_stays_open(tmp_path: Path) -> None:
    """Modelled: the same TP 2 command over Ray, without the warning (both GPUs on one node): no node span is shown."""
    quiet = REAL["dougbtv-blog"].split("\n\n")[0] + "\n"
    r = paste_checks(tmp_path, quiet, CUSTOM_AR)[CUSTOM_AR]
    assert r.status == "unknown" and "TP=2" in r.message


def test_fact_reads_command_and_log() -> None:
    from stackaudit.facts.parallelism import tp_group_across_nodes
    from stackaudit.facts.serving_logs import parse_serving_log

    assert "reserves 1 GPU(s)" in tp_group_across_nodes(None, parse_serving_log(REAL["fastsafetensors-36"]))
    quiet = "INFO 11-12 11:11:49 [ray_distributed_executor.py:179] use_ray_spmd_worker: True\n"
    assert tp_group_across_nodes(None, parse_serving_log(quiet)) == ""
    assert tp_group_across_nodes(None, None) == ""
