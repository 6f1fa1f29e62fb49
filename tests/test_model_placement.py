"""A serving framework's own placement of a model on GPUs (facts/model_placement.py, importers/model_placement.py;
h69d, issue 28's IC-TOPOLOGY-PLACEMENT class): each copy of the model on one GPU leaves no group of GPUs to place.

Real lines are corpus captures; counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.model_placement import ModelPlacements, model_placements


def test_xinference_replicas_over_listed_gpus_1495() -> None:
    """corpus 1495: `--gpu-idx 0,1 --replica 2`: Xinference gives each replica one of the two GPUs."""
    placed = fact(pasted(body("1495")), "model_placements")
    assert isinstance(placed, ModelPlacements) and [p.gpus_each for p in placed.placements] == [1]
    result = capture_checks("1495", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "not-applicable" and "--gpu-idx 0,1" in result.message


def test_xinference_worker_gpu_index_1498() -> None:
    """corpus 1498: the worker's `launch the model: bge-reranker-v2-m3 on GPU index: [2]` is read (the paste, a log of
    Xinference's alone, is recognised by it)."""
    result = capture_checks("1498", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    # Xinference's own log line (facts/serving_logs, TP 1) or the placement (`on GPU index: [2]`) says it first.
    assert result.status == "not-applicable" and ("GPU index [2]" in result.message or "one GPU" in result.message)


def test_triton_kind_gpu_instance_groups_1493() -> None:
    """corpus 1493: two models, each `count: 1 kind: KIND_GPU gpus: [ 6 ]` / `[ 7 ]`: one GPU per instance."""
    placed = fact(pasted(body("1493")), "model_placements")
    assert isinstance(placed, ModelPlacements) and len(placed.placements) == 2
    assert capture_checks("1493", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"


def test_replicas_sharing_gpus_are_no_one_gpu_placement() -> None:
    """Modelled counter-examples: four GPUs over two replicas are two each; a launch without --gpu-idx leaves the
    GPUs to Xinference (`--n-gpu auto`, every GPU); a list the replicas do not divide is not read."""
    for line, each in (("xinference launch -n m --gpu-idx 0,1,2,3 --replica 2", 2),
                       ("xinference launch -n m --model-engine vllm", None),
                       ("xinference launch -n m --gpu-idx 0,1,2 --replica 2", None),
                       ("xinference launch -n m --n-gpu 1", 1)):
        assert model_placements(line + "\n").placements[0].gpus_each == each, line
    assert model_placements("xinference launch -n m --gpu-idx 0,1,2,3 --replica 2\n").one_gpu_each() == ""


def test_a_multi_gpu_backend_instance_is_not_read(tmp_path: Path) -> None:
    """Modelled counter-example: a TensorRT-LLM backend's instance runs its own ranks over several GPUs, so its
    instance group is no one-GPU copy: the paste holds no placement."""
    text = ('backend: "tensorrtllm"\nmax_batch_size: 8\ninstance_group [\n  {\n    count: 1\n    kind: KIND_GPU\n'
            '    gpus: [ 0 ]\n  }\n]\nnvidia-smi topo -m\n')
    results = paste_checks(tmp_path, text + _TOPO, "IC-TOPOLOGY-PLACEMENT")
    assert results["IC-TOPOLOGY-PLACEMENT"].status != "not-applicable"


# Modelled: a two-GPU matrix over SYS, so the paste is recognised by something besides the config.
_TOPO = ("        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      SYS     0-15    0\n"
         "GPU1    SYS      X      16-31   1\n")
