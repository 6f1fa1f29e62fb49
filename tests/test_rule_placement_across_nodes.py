"""Placement settled without a topology matrix (corpus 1247, 1213).

- IC-TOPOLOGY-PLACEMENT: vLLM's Ray executor warning that its TP size is bigger than the GPUs Ray reserves on a node
  (ServingLog.tp_beyond_node) puts one TP group on two nodes or more: an issue, no matrix needed.
- IC-TOPOLOGY-PLACEMENT: a parameter list's `gpu=2` (facts/gpus.owned_gpu_count) is the host's count, so the
  two-GPU rule applies: any TP group is both GPUs, not an issue.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"

# Modelled on corpus 1247's lines (vLLM 0.8 with the Ray executor), the sizes changed: TP 4 over nodes of 2 GPUs.
RAY_WARNING = """\
2025-05-11 14:01:51,337\tINFO worker.py:1832 -- Connected to Ray cluster. View the dashboard at http://10.0.0.2:8265
INFO 05-11 14:01:51 [ray_utils.py:335] No current placement group found. Creating a new placement group.
WARNING 05-11 14:01:51 [ray_utils.py:199] tensor_parallel_size=4 is bigger than a reserved number of GPUs (2 GPUs) \
in a node 15743861b47b6b28149cf06311a52a4d58253409f39c67e073b94ab2. Tensor parallel workers can be spread out to 2+ \
nodes which can degrade the performance unless you have fast interconnect across nodes, like Infiniband. To resolve \
this issue, make sure you have more than 4 GPUs available at each node.
INFO 05-11 14:01:51 [ray_distributed_executor.py:176] use_ray_spmd_worker: True
"""


def test_ray_warning_of_tp_beyond_a_node_is_an_issue() -> None:
    """Real (capture 1247): `tensor_parallel_size=16 is bigger than a reserved number of GPUs (8 GPUs) in a node`."""
    r = capture_checks("1247", PLACEMENT)[PLACEMENT]
    assert r.status == "issue" and "8 GPUs Ray reserves on a node" in r.message
    assert "TP 8 inside each node with PP 2" in r.message
    assert r.coverage is not None and r.coverage.text() == "16 GPUs shown"


def test_modelled_ray_warning(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, RAY_WARNING, PLACEMENT)[PLACEMENT]
    assert r.status == "issue" and "TP group of 4 GPUs" in r.message and "TP 2 inside each node" in r.message


def test_ray_log_without_the_warning_stays_open(tmp_path: Path) -> None:
    """The same log without the warning: a Ray placement group alone does not say the group spans nodes."""
    quiet = "\n".join(line for line in RAY_WARNING.splitlines() if "is bigger than" not in line) + "\n"
    assert paste_checks(tmp_path, quiet, PLACEMENT)[PLACEMENT].status == "unknown"


def test_warning_read_once_into_the_log_fact() -> None:
    from stackaudit.facts.serving_logs import parse_serving_log

    log = parse_serving_log(RAY_WARNING)
    assert [(tp, node) for tp, node, _ in log.tp_beyond_node] == [(4, 2)]
    assert parse_serving_log(RAY_WARNING.replace("is bigger than", "is within")).tp_beyond_node == ()


def test_user_parameter_count_settles_a_two_gpu_host() -> None:
    """Real (capture 1213): `node=1` / `gpu=2` / `tensor-parallel-size=2` in the user's parameters, no GPU listed."""
    r = capture_checks("1213", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "two GPUs" in r.message


def test_keyed_count_reading() -> None:
    from stackaudit.facts.gpus import owned_gpu_count

    assert owned_gpu_count("gpu=2 ") == 2
    assert owned_gpu_count("- GPUs: 4") == 4
    assert owned_gpu_count("**gpu=2**") == 2
    # A flag, a script's variable, a per-actor resource, a utilisation field: no count of the host's GPUs.
    for line in ("  --gpus=2 \\", "GPU_NUM=4", "num_gpus=1", "        Gpu                         : 0 %",
                 "GPU: 2xRTX4090", "GPU: 1 %"):
        assert owned_gpu_count(line) is None, line
