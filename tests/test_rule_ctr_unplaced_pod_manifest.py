"""CTR-GPU-ACCESS: a pod its status shows not scheduled holds no GPU, its manifest pasted beside it too (blind batch BB).

A `kubectl describe pod` whose `Node: <none>` and `Status: Pending` show the pod never placed leaves every container of
that pod without a GPU: the containers its manifest (the same pod by name) pasted beside it shows are unplaced too,
where the describe is cut before its own containers' limits (corpus 1968 cut after line 42: the request the manifest
shows is no evidence of access). A scheduled pod of that name, or an unplaced pod of another name, changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, load_corpus, paste_checks

GPU = "CTR-GPU-ACCESS"


def _cut(prefix: str, lines: int) -> str:
    entry = next(e for e in load_corpus() if e.name.startswith(prefix + "-"))
    return "\n".join(entry.body.split("\n")[:lines])


def test_unplaced_pod_describe_cut_before_limits_leaves_its_manifest_unplaced(tmp_path: Path) -> None:
    # Real: NVIDIA/k8s-device-plugin (corpus 1968), cut after line 42: the describe's containers lose their limits.
    got = paste_checks(tmp_path, _cut("1968", 42), GPU)[GPU]
    assert got.status == "unknown"
    assert "not scheduled" in got.message
    # The whole paste reads the same.
    assert capture_checks("1968", GPU)[GPU].status == "unknown"


# Real: NVIDIA/k8s-device-plugin#430 (Triton's pod, describe whole to its Conditions).
TRITON_PENDING = """\
root@ttogpu:~# kubectl describe pod triton-inference-server-5b6c7f889c-f54c6
Name:             triton-inference-server-5b6c7f889c-f54c6
Namespace:        default
Priority:         0
Service Account:  default
Node:             <none>
Labels:           app=triton-inference-server
                  pod-template-hash=5b6c7f889c
Annotations:      <none>
Status:           Pending
IP:
IPs:              <none>
Controlled By:    ReplicaSet/triton-inference-server-5b6c7f889c
Containers:
  triton-server:
    Image:       triton_server:latest
    Ports:       8000/TCP, 8001/TCP, 8002/TCP
    Host Ports:  0/TCP, 0/TCP, 0/TCP
    Limits:
      nvidia.com/gpu:  1
    Requests:
      nvidia.com/gpu:  1
    Environment:
      DP_DISABLE_HEALTHCHECKS:  xids
    Mounts:
      /models from model-repository (rw)
Conditions:
  Type           Status
  PodScheduled   False
"""

# Real: NVIDIA/k8s-device-plugin#33 (a comment's describe of a Deployment's pod, its first container).
SERVING_PENDING = """\
```
  Name:           xyz-v1-5c5b57cf9c-kvjxn
  Namespace:      default
  Node:           <none>
  Labels:         app=xyz
                  pod-template-hash=1716137957
                  version=v1
  Annotations:    <none>
  Status:         Pending
  IP:
  Controlled By:  ReplicaSet/xyz-v1-5c5b57cf9c
  Containers:
    aadhar:
      Image:      tensorflow/serving:1.11.1-gpu
      Port:       9000/TCP
      Host Port:  0/TCP
      Command:
        /usr/bin/tensorflow_model_server
      Args:
        --port=9000
        --model_name=xyz
      Limits:
        cpu:             4
        memory:          4Gi
        nvidia.com/gpu:  1
      Requests:
        cpu:             1
        memory:          1Gi
        nvidia.com/gpu:  1
      Environment:       <none>
      Mounts:
        /var/run/secrets/kubernetes.io/serviceaccount from default-token-b6dpn (ro)
```
"""


def test_unplaced_pods_of_other_threads_hold_no_gpu(tmp_path: Path) -> None:
    for text in (TRITON_PENDING, SERVING_PENDING):
        got = paste_checks(tmp_path, text, GPU)[GPU]
        assert got.status == "unknown", got.message
        assert "not scheduled" in got.message


# Modelled (corpus 1968's shape): the pod's manifest, then a describe of it cut before its containers' limits.
MANIFEST = """\
```
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  containers:
    - name: cuda-container
      image: nvidia/cuda:12.2.0-base-ubuntu22.04
      command: ["nvidia-smi"]
      resources:
        limits:
          nvidia.com/gpu: 1
```

```
Name:         {name}
Namespace:    default
Node:         {node}
Labels:       <none>
Annotations:  <none>
Status:       {phase}
IP:
Containers:
  cuda-container:
    Image:      nvidia/cuda:12.2.0-base-ubuntu22.04
    Port:       <none>
    Host Port:  <none>
"""


def test_modelled_manifest_beside_unplaced_describe_is_not_ok(tmp_path: Path) -> None:
    text = MANIFEST.format(name="gpu-pod", node="<none>", phase="Pending")
    assert paste_checks(tmp_path, text, GPU)[GPU].status == "unknown"


def test_modelled_scheduled_or_other_pod_keeps_the_manifest_request(tmp_path: Path) -> None:
    # Modelled counter-examples: the same pod placed on a node, and another pod of the namespace waiting.
    # Each is judged on its manifest's request (alone no GPU inside: unknown, issue 28 h121c), not as unscheduled.
    placed = MANIFEST.format(name="gpu-pod", node="gpu-node-1/10.0.0.5", phase="Running")
    got = paste_checks(tmp_path, placed, GPU)[GPU]
    assert "request GPUs: cuda-container (1)" in got.message and "not scheduled" not in got.message
    other = MANIFEST.format(name="other-pod", node="<none>", phase="Pending")
    got = paste_checks(tmp_path, other, GPU)[GPU]
    assert "request GPUs: cuda-container (1)" in got.message and "not scheduled" not in got.message
