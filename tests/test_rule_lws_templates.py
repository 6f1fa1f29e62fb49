"""Rule: a LeaderWorkerSet's pods are its two templates (spec.leaderWorkerTemplate.leaderTemplate / workerTemplate),
read like a Deployment's pod template; and a container's piece pasted from the tail of its command (`--tp 16 \\`)
down to its `ports:` and `resources:` keeps that tail as the container's arguments (issue 28).

Real pastes: kubernetes-sigs/wg-serving#29 (a vLLM leader template), vllm-project/vllm#46830 (a vLLM worker
template) and 748 (sglang#20859, the piece of an SGLang LWS container). The two-template manifest is modelled.
"""

from __future__ import annotations

from corpus import capture_checks
from stackaudit.facts.container_specs import parse_k8s

# https://github.com/kubernetes-sigs/wg-serving/pull/29 (description by Edwinhr716, 2025-03-19), the LWS document
# of its output yaml, cut inside the leader container's env list.
WG_SERVING_29 = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llama3-1-405b-it-lws
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      metadata:
        labels:
          ai.gke.io/model: llama3-1-405b-it
          app: multihost-inference-server
          examples.ai.gke.io/source: blueprints
          role: leader
      spec:
        containers:
        - command:
          - sh
          - -c
          - bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader
            --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server
            --port 8080 --model $(MODEL_ID) --tensor-parallel-size $(TENSOR_PARALLEL_SIZE)
            --pipeline_parallel_size $(PIPELINE_PARALLEL_SIZE)
          env:
          - name: HUGGING_FACE_HUB_TOKEN
            valueFrom:
"""

# https://github.com/vllm-project/vllm/issues/46830 (comment by elvircrn), cut inside the worker's script.
VLLM_46830 = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: wide-ep-lws-nvidia-gpu-vllm-glm-5-2-prefill
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 1
    workerTemplate:
      spec:
        volumes:
          - name: dshm
            emptyDir:
              medium: Memory
              sizeLimit: 2Gi
        containers:
          - name: vllm
            image: vllm/vllm-openai:nightly
            command:
              - /bin/bash
              - -c
            args:
              - |-
                find /dev/shm -type f -delete
"""

# Modelled: both templates, the leader serving SGLang over two nodes and the worker joining it.
TWO_TEMPLATES = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: sglang
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - name: sglang-leader
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server", "--tp", "16", "--nnodes", "2", "--node-rank", "0"]
          resources:
            limits:
              nvidia.com/gpu: "8"
    workerTemplate:
      spec:
        containers:
        - name: sglang-worker
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server", "--tp", "16", "--nnodes", "2", "--node-rank", "1"]
          resources:
            limits:
              nvidia.com/gpu: "8"
"""


def test_a_leader_template_is_read() -> None:
    (ctr,) = parse_k8s(WG_SERVING_29)
    assert ctr.engine == "vllm" and "--tensor-parallel-size" in " ".join(ctr.argv)
    assert ctr.excerpt  # cut before its image


def test_a_worker_template_is_read() -> None:
    (ctr,) = parse_k8s(VLLM_46830)
    assert ctr.name == "vllm" and ctr.image == "vllm/vllm-openai:nightly"


def test_both_templates_are_read() -> None:
    leader, worker = parse_k8s(TWO_TEMPLATES)
    assert (leader.name, worker.name) == ("sglang-leader", "sglang-worker")
    assert [c.gpu_count for c in (leader, worker)] == [8, 8]
    assert worker.flag("--node-rank") == "1"


def test_a_container_piece_keeps_its_command_tail() -> None:
    # 748: the arguments' tail, then `ports:` and `resources:`: no longer refused, the flags are the container's.
    results = capture_checks("748", "CTR-GPU-ACCESS", "CTR-SHM-SIZE", "IC-NIC-GPU-AFFINITY")
    assert results["CTR-SHM-SIZE"].status == "unknown"
    assert results["IC-NIC-GPU-AFFINITY"].status == "unknown"
    assert "8" in results["CTR-GPU-ACCESS"].message


def test_a_piece_without_a_flag_tail_adds_no_arguments() -> None:
    # Modelled: the tail above the keys is a cut env value, not flags.
    from stackaudit.importers.container_specs import _container_fragment

    lines = ["              value: \"1\"", "            ports:", "            - containerPort: 8000",
             "            resources:", "              limits:", "                nvidia.com/gpu: \"8\""]
    found = _container_fragment(lines, 3)
    assert found is not None and "args:" not in found[2]
    (ctr,) = parse_k8s(found[2])
    assert ctr.argv == () and ctr.gpu_count == 8


def test_the_piece_of_748_carries_its_flags() -> None:
    from corpus import CAPTURES_DIR
    from stackaudit.importers.container_specs import _container_fragment

    text = next(CAPTURES_DIR.glob("748-*.txt")).read_text().split("-----\n", 1)[1]
    lines = text.splitlines()
    found = next(f for i in range(len(lines)) if (f := _container_fragment(lines, i)) is not None)
    (ctr,) = parse_k8s(found[2])
    assert ctr.flag("--tensor-parallel-size") == "16" and ctr.flag("--node-rank") == "$LWS_WORKER_INDEX"
    assert ctr.gpu_count == 8
