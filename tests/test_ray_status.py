"""Issue 28 (recognition): `ray status` pasted into a report (corpus 852).

It shows the Ray cluster: its running nodes (`Active:` one line per node, or `Healthy:` a count per node type) and
its GPUs in all (`Usage: 0.0/8.0 GPU`); `ray status -v` adds each node's own section. A cluster of several nodes
shows where a job on Ray can run, not where it runs (vLLM's placement group is packed onto as few nodes as it can),
so it settles a job's nodes only where one node holds every rank, or where `-v` shows no node holds its TP x PP.

Real outputs: corpus 852 (vllm#7699), vllm#15217 and vllm#5094 (two-node clusters under vLLM), ray#30328 (a count per
node type). The cluster shapes tested against an engine command are modelled and say so.
"""

from __future__ import annotations

from corpus import body, fact, pasted
from stackaudit.facts.ray_log import RayCluster, ray_cluster_from_status
from stackaudit.facts.serving_logs import NcclNodes
from stackaudit.importers.recognition import recognise

# https://github.com/vllm-project/vllm/issues/15217 (chn-lee-yumi's issue body), with its prompt.
STATUS_15217 = """```
Singularity> ray status
======== Autoscaler status: 2025-03-20 20:40:48.252496 ========
Node status
---------------------------------------------------------------
Active:
 1 node_5373538893976cc08e332acdf25b3f043ca49757d98d5f6ab048d1ed
 1 node_1689389e001b234e7d470b2da54b6c17b4441403358cf341f778e2ea
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/256.0 CPU
 0.0/2.0 GPU
 0B/311.15GiB memory
 0B/137.34GiB object_store_memory

Demands:
 (no resource demands)
```

Then I run `vllm serve ./DeepSeek-V3 --trust-remote-code --tensor-parallel-size 1 --pipeline-parallel-size 2` on the head node, it showed:
"""
# https://github.com/vllm-project/vllm/issues/5094 (linchen111's issue body): GPUs reserved in placement groups.
STATUS_5094 = """(vllm042) root@ubuntu:~# ray status
======== Autoscaler status: 2024-05-29 04:15:40.185279 ========
Node status
---------------------------------------------------------------
Active:
 1 node_44ba686d06daa1e59b426d84054a70f867ae791fc1ac8e1ca9b89395
 1 node_ad1ec224eb7ec94e75064d9463a6b129a16ade62c047833e53ccdce7
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/112.0 CPU
 16.0/16.0 GPU (16.0 used of 16.0 reserved in placement groups)
 0B/163.40GiB memory
 0B/74.02GiB object_store_memory

Demands:
 (no resource demands)
"""
# https://github.com/ray-project/ray/issues/30328 (wuisawesome's description): nodes counted per node type.
STATUS_30328 = """======== Autoscaler status: 2022-11-15 18:20:23.282168 ========
Node status
---------------------------------------------------------------
Healthy:
 10 worker-node-type-0
 1 head-node-type
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 88.0/88.0 CPU
 0.00/542.317 GiB memory
 0.00/102.167 GiB object_store_memory
"""


def _status(text: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == "ray status"]


def test_corpus_852_ray_status_is_read() -> None:
    assert _status(body("852")) == [("ray status", 29, 49)]
    cluster = fact(pasted(body("852")), "ray_cluster")
    assert isinstance(cluster, RayCluster) and (cluster.nodes, cluster.gpus) == (2, 8)
    # Two nodes and a TP that is a shell variable: where the job's ranks run is not shown.
    nodes = fact(pasted(body("852")), "nccl_nodes")
    assert not isinstance(nodes, NcclNodes) or not (nodes.several or nodes.one)


def test_real_outputs_are_read_with_their_nodes_and_gpus() -> None:
    assert _status(STATUS_15217) == [("ray status", 3, 23)]
    assert _status(STATUS_5094) == [("ray status", 2, 22)]
    assert _status(STATUS_30328) == [("ray status", 1, 17)]
    read = [ray_cluster_from_status(t) for t in (STATUS_15217, STATUS_5094, STATUS_30328)]
    assert [(c.nodes, c.gpus) for c in read] == [(2, 2), (2, 16), (11, None)]


def _two_nodes_verbose(gpus: tuple[int, int]) -> str:
    """Modelled: `ray status -v` of a two-node cluster with these GPUs on its nodes (ray#35411's layout)."""
    sections = "".join(f"\nNode: 10.0.0.{n} (ray.worker.default)\n Usage:\n  0.0/{g}.0 GPU\n" for n, g in enumerate(gpus))
    return ("======== Autoscaler status: 2024-01-01 00:00:00.000000 ========\nNode status\n" + "-" * 63 + "\nActive:\n"
            " 1 node_a\n 1 node_b\nPending:\n (no pending nodes)\n\nResources\n" + "-" * 63 + "\nTotal Usage:\n"
            f" 0.0/{sum(gpus)}.0 GPU\n" + sections)


def test_modelled_job_on_ray_that_no_node_holds_spans_nodes() -> None:
    command = "vllm serve m --tensor-parallel-size 8 --distributed-executor-backend ray\n"
    assert ray_cluster_from_status(_two_nodes_verbose((4, 4))).node_gpus == (4, 4)
    nodes = fact(pasted(command + _two_nodes_verbose((4, 4))), "nccl_nodes")
    assert isinstance(nodes, NcclNodes) and nodes.several
    # Counter-examples: a node holds all 8 GPUs; the cluster's totals alone (no `-v`) do not place the job.
    nodes = fact(pasted(command + _two_nodes_verbose((8, 4))), "nccl_nodes")
    assert not isinstance(nodes, NcclNodes) or not nodes.several
    nodes = fact(pasted(command + STATUS_5094), "nccl_nodes")
    assert not isinstance(nodes, NcclNodes) or not nodes.several


def test_modelled_one_node_cluster_holds_a_ray_job() -> None:
    one = STATUS_30328.replace(" 10 worker-node-type-0\n", "")
    nodes = fact(pasted("vllm serve m -tp 4 --distributed-executor-backend=ray\n" + one), "nccl_nodes")
    assert isinstance(nodes, NcclNodes) and nodes.one and not nodes.several
    # An engine that does not run on Ray is not placed by Ray's cluster.
    nodes = fact(pasted("vllm serve m -tp 4\n" + one), "nccl_nodes")
    assert not isinstance(nodes, NcclNodes) or not nodes.one


# Ray 1.x's `ray status` (format_info_string_no_node_types): `Cluster status` and a count per node type with one node's
# resources. Modelled on corpus 2386: two GPU node types, so no one node holds every GPU.
STATUS_1X_TWO_GPU_NODES = """======== Cluster status: 2021-04-26 07:47:02.095752 ========
Node status
------------------------------------------------------------
 1 node(s) with resources: {'CPU': 1.0, 'node:10.0.58.7': 1.0, 'object_store_memory': 1275152793.0}
 2 node(s) with resources: {'GPU': 4.0, 'CPU': 40.0, 'accelerator_type:V100': 1.0}
 1 node(s) with resources: {'GPU': 2.0, 'CPU': 16.0}

Resources
-----
"""


def test_corpus_2386_ray_1x_status_is_read() -> None:
    from corpus import capture_result

    cluster = fact(pasted(body("2386")), "ray_cluster")
    assert isinstance(cluster, RayCluster) and (cluster.nodes, cluster.gpus, cluster.node_gpus) == (2, 4, (0, 4))
    assert [g.model for g in fact(pasted(body("2386")), "gpus").gpus] == ["T4"] * 4
    assert capture_result("2386", "MEM-MIG").status == "not-applicable"
    ipc = capture_result("2386", "CTR-IPC-ISOLATION")
    assert ipc.status == "ok" and "one node holds all 4 GPUs" in ipc.message


def test_ray_1x_status_of_several_gpu_nodes_settles_no_namespace(tmp_path) -> None:
    from corpus import paste_checks

    cluster = ray_cluster_from_status(STATUS_1X_TWO_GPU_NODES)
    assert (cluster.nodes, cluster.gpus, cluster.node_gpus) == (4, 10, (0, 4, 4, 2))
    # One GPU node type names no accelerator: no model for the cluster's GPUs.
    assert not isinstance(fact(pasted(STATUS_1X_TWO_GPU_NODES), "gpus"), type(fact(pasted(body("2386")), "gpus")))
    results = paste_checks(tmp_path, STATUS_1X_TWO_GPU_NODES, "CTR-IPC-ISOLATION", "MEM-MIG")
    assert results["CTR-IPC-ISOLATION"].status != "ok" and results["MEM-MIG"].status != "not-applicable"
