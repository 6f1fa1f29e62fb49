"""IC-NIC-GPU-AFFINITY on a host of one GPU (facts/parallelism.one_gpu_host; issue 28, blind XP and QQ).

A whole topology matrix of one GPU is the host's one GPU: with nothing in the source putting it in a job across nodes
or instances, no GPU traffic leaves the host, so where its NICs sit is not applicable (corpus 862 and 1130, both
with NODE NICs, which the check left unknown before). An engine flag for a job across nodes, a communicator of several
ranks (the other ranks on other hosts) or a KV-cache transfer keeps the NICs in play.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.parallelism import ServingEngine, one_gpu_host
from stackaudit.facts.serving_logs import ServingLog

CHECK = "IC-NIC-GPU-AFFINITY"

# Corpus 862's paste (vllm#21028, the tail of collect_env with its GPU Topology), verbatim: one GPU, two NICs at NODE.
ONE_GPU_MATRIX = body("862")

# Modelled: an SGLang command that starts one node of a two-node job.
TWO_NODE_COMMAND = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --nnodes 2 --node-rank 0 "
                    "--dist-init-addr 10.0.0.1:5000\n")


def test_one_gpu_matrix_with_node_nics_is_not_applicable() -> None:
    """vllm#21028 (862) and vllm#21466 (1130): the matrix holds GPU0 alone; its NICs are NODE, and no engine, log or
    flag shows a job beyond the host."""
    for prefix in ("862", "1130"):
        got = capture_checks(prefix, CHECK)[CHECK]
        assert got.status == "not-applicable", (prefix, got.message)
        assert "the host has one GPU" in got.message


def test_the_one_gpu_host_fact_reads_the_whole_matrix() -> None:
    host = pasted(ONE_GPU_MATRIX)
    gpus, engine = fact(host, "gpus"), fact(host, "serving_engine")
    assert gpus.whole_count == 1
    assert one_gpu_host(gpus, engine, None).startswith("the host has one GPU")


def test_a_job_across_nodes_keeps_the_nics_in_play() -> None:
    """The same host in a two-node job (modelled), or beside a communicator of two ranks or a KV-cache transfer: the
    one GPU sends traffic through a NIC, so the fact says nothing."""
    gpus = fact(pasted(ONE_GPU_MATRIX), "gpus")
    engine = fact(pasted(TWO_NODE_COMMAND), "serving_engine")
    assert isinstance(engine, ServingEngine) and engine.shown is not None
    assert one_gpu_host(gpus, engine, None) == ""
    assert one_gpu_host(gpus, None, ServingLog(comm_ranks=2)) == ""
    assert one_gpu_host(gpus, None, ServingLog(kv_transfer=True)) == ""
    assert one_gpu_host(gpus, None, ServingLog(comm_ranks=1)) != ""
