"""CTR-GPU-ACCESS and CTR-IPC-ISOLATION over Kubernetes' own words about GPUs (facts/k8s_node.py,
facts/symptoms.py): a scheduler's `Insufficient nvidia.com/gpu` where every GPU the node offers is requested by its pods
(describe's Allocated resources, read alone too) is GPUs taken, not lost: not an issue. The kubelet's admission refusal
of a GPU (`Allocate failed due to ...`) is an issue in the GPU-sharing schedulers' words too, and where YAML folds its
status message over lines. Triton's `CUDA memory pool disabled` leaves a GPU request shown unproven.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.k8s_node import parse_k8s_nodes
from stackaudit.facts.symptoms import find_symptoms

# Real: https://github.com/NVIDIA/k8s-device-plugin/issues/213 (the issue body, kpouget, 2020-12-09; corpus 1945):
# the node's resources, the Allocated resources table cut out of describe, and the scheduler's event.
PLUGIN_213 = """\
```
apiVersion: v1
kind: Node
status:
  allocatable:
    nvidia.com/gpu: "1"
  capacity:
    nvidia.com/gpu: "1"
```

although I have a Pod running and using the GPU.

```
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource                    Requests     Limits
  --------                    --------     ------
  nvidia.com/gpu              1            1
```
and as expected, I cannot create another GPU Pod:
```
  Warning  FailedScheduling  12s   default-scheduler  0/6 nodes are available: 6 Insufficient nvidia.com/gpu.
```
"""

# Modelled: the same node with its GPU free (no pod requests it): the scheduler's refusal is then no count of GPUs taken.
GPU_FREE = PLUGIN_213.replace("nvidia.com/gpu              1            1", "nvidia.com/gpu              0            0")

# Modelled on `kubectl describe node` of an 8-GPU node whose pods request all eight, the event beside it.
EIGHT_TAKEN = """\
Name:               gpu-node-1
Roles:              <none>
Labels:             kubernetes.io/hostname=gpu-node-1
Capacity:
  cpu:                96
  nvidia.com/gpu:     8
  pods:               110
Allocatable:
  cpu:                96
  nvidia.com/gpu:     8
  pods:               110
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource           Requests    Limits
  --------           --------    ------
  cpu                850m (0%)   0 (0%)
  nvidia.com/gpu     8           8
Events:              <none>

  Warning  FailedScheduling  3s    default-scheduler  0/1 nodes are available: 1 Insufficient nvidia.com/gpu.
"""


def test_allocated_table_alone_is_read_as_a_node_piece() -> None:
    table = PLUGIN_213.split("although")[1]
    node = parse_k8s_nodes(table[table.index("Allocated"):]).nodes[0]
    assert [(e.key, e.value) for e in node.requested] == [("nvidia.com/gpu", "1")]


def test_every_gpu_taken_makes_insufficient_not_an_issue(tmp_path: Path) -> None:
    for text in (PLUGIN_213, EIGHT_TAKEN):
        r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "not-an-issue", text
        assert "Insufficient nvidia.com/gpu" in r.message and "taken, not lost" in r.message


def test_a_free_gpu_leaves_insufficient_an_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, GPU_FREE, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue"


def test_one_gpu_nodes_split_no_ranks(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, PLUGIN_213, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "not-applicable" and "one GPU device" in r.message
    r = paste_checks(tmp_path, EIGHT_TAKEN, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status != "not-applicable" or "one GPU device" not in r.message


def test_corpus_1945() -> None:
    r = capture_checks("1945", "CTR-GPU-ACCESS", "CTR-IPC-ISOLATION")
    assert r["CTR-GPU-ACCESS"].status == "not-an-issue"
    assert r["CTR-IPC-ISOLATION"].status == "not-applicable"


# Real: https://github.com/ray-project/kuberay/issues/1414 (the issue body, SunnyGhj, 2023-09-12; corpus 1932): the
# pod's status, its message folded by YAML over two lines.
KUBERAY_1414 = """\
```
status:
  message: Pod Allocate failed due to pod d65f09ad-cca3-4631-a0a3-d5ba850f8a69 container
    wait-gcs-ready unable to find GPU device allocation by scheduler, which is unexpected
  phase: Failed
  reason: UnexpectedAdmissionError
  startTime: "2023-09-12T05:46:46Z"
```
"""
# Real: https://github.com/volcano-sh/devices/issues/17 (the issue body, GLL550C, 2021-11-19).
VOLCANO_DEVICES_17 = ("运行pod报错 Warning  UnexpectedAdmissionError  79s   kubelet  Allocate failed due to rpc error: "
                      "code = Unknown desc = failed to find gpu id, which is unexpected @ @\n")
# Real: https://github.com/Project-HAMi/HAMi/issues/57 (the issue body, mzznqt, 2023-02-16).
HAMI_57 = ("Warning  UnexpectedAdmissionError  8m44s      kubelet  Update plugin resources failed due to pod "
           "54e133a1-cb7e-4af8-ac97-46ad084ecd73 missing annotation for gpu allocation decision from scheduler, which "
           "is unexpected.\n")
# Modelled: AMD's device plugin refusing its amd.com/gpu: not an NVIDIA GPU's access.
AMD_REFUSED = ("Warning  UnexpectedAdmissionError  5s  kubelet  Allocate failed due to requested number of devices "
               "unavailable for amd.com/gpu. Requested: 1, Available: 0, which is unexpected\n")


def test_admission_refusals_of_a_gpu_are_issues(tmp_path: Path) -> None:
    for text in (KUBERAY_1414, VOLCANO_DEVICES_17, HAMI_57):
        r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "issue", text
        assert "UnexpectedAdmissionError" in r.message
    r = paste_checks(tmp_path, KUBERAY_1414, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert "unable to find GPU device allocation" in r.message  # the folded line, read whole


def test_amd_refusal_is_not_nvidia_access() -> None:
    assert not [h for h in find_symptoms([AMD_REFUSED]) if h.symptom.name == "k8s-gpu-admission-failed"]
    assert [h.symptom.name for h in find_symptoms([HAMI_57])] == ["k8s-gpu-admission-failed"]


def test_corpus_1932() -> None:
    assert capture_checks("1932", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


# Real: https://github.com/triton-inference-server/server/issues/6325 (the issue body, 32r81b, 2023-09-19): Triton
# started with no GPU request.
TRITON_6325 = """\
docker run --rm -p8000:8000 -p8001:8001 -p8002:8002 --gpus all nvcr.io/nvidia/tritonserver:22.08-py3
I0919 05:33:12.822978 364 cuda_memory_manager.cc:115] CUDA memory pool disabled
I0919 05:33:12.827356 364 model_lifecycle.cc:459] loading: bert_ik_ru:1
"""
# Modelled: the same run without the line: the request stands for the container.
TRITON_POOL = TRITON_6325.replace("CUDA memory pool disabled", "CUDA memory pool is created on device 0 with size 67108864")


def test_triton_pool_disabled_leaves_the_request_unproven(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TRITON_6325, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "unknown" and "CUDA memory pool disabled" in r.message
    assert capture_checks("1925", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_triton_pool_created_keeps_ok(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, TRITON_POOL, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"


# CUDA at work where the source does not say whether the program ran in a container: ok wherever it ran.
# Real: https://github.com/ollama/ollama/issues/11983 (the issue body, josetesan, 2025-08-20).
OLLAMA_11983 = """\
CUDA driver version: 12.9
calling cuDeviceGetCount
device count 1
time=2025-08-20T11:51:52.333+02:00 level=DEBUG source=gpu.go:125 msg="detected GPUs" count=1 library=/usr/lib/libcuda.so.575.64.05
[GPU-c2e245dd-43c2-fb0c-f77c-93e3e5cd10c5] CUDA totalMem 7838mb
[GPU-c2e245dd-43c2-fb0c-f77c-93e3e5cd10c5] CUDA freeMem 7185mb
[GPU-c2e245dd-43c2-fb0c-f77c-93e3e5cd10c5] Compute Capability 8.6
"""
# Real: https://github.com/ollama/ollama/issues/3940 (a comment, pierocor, 2024-06-06): journald's prefix before it.
OLLAMA_3940 = """\
Jun 06 11:22:07 mygpu ollama[243665]: [GPU-e2dfead1-6232-e5c1-efb8-f20bf39d937a] CUDA freeMem 80580 mb
Jun 06 11:22:07 mygpu ollama[243665]: [GPU-e2dfead1-6232-e5c1-efb8-f20bf39d937a] Compute Capability 8.0
Jun 06 11:22:07 mygpu ollama[243665]: releasing nvcuda library
"""
# Real: https://github.com/ollama/ollama/issues/9639 (a comment, NikolasTh90, 2025-06-23).
OLLAMA_9639 = """\
Ιουν 23 16:12:49 brainiac ollama[116520]: device count 1
Ιουν 23 16:12:50 brainiac ollama[116520]: [GPU-dfea5d8a-bc26-58e4-88af-51bdaf629a01] CUDA totalMem 23995mb
Ιουν 23 16:12:50 brainiac ollama[116520]: [GPU-dfea5d8a-bc26-58e4-88af-51bdaf629a01] CUDA freeMem 20180mb
Ιουν 23 16:12:50 brainiac ollama[116520]: [GPU-dfea5d8a-bc26-58e4-88af-51bdaf629a01] Compute Capability 8.9
"""


def test_cuda_at_work_outside_any_container_shown_is_ok(tmp_path: Path) -> None:
    for text in (OLLAMA_11983, OLLAMA_9639):  # 9639's Greek month leaves journald's prefix unread: no host shown
        r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "ok" and "wherever it runs" in r.message, text
    # journald's tag puts the program on the host (facts/container.py): no container to judge, whatever CUDA did.
    assert paste_checks(tmp_path, OLLAMA_3940, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"
    for n in ("1927", "1930"):
        assert capture_checks(n, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok", n


def test_cuda_refusing_outside_any_container_stays_open(tmp_path: Path) -> None:
    # Modelled: the same discovery finding no device: nothing reached.
    text = OLLAMA_11983.replace("device count 1", "device count 0").split("[GPU-")[0]
    r = paste_checks(tmp_path, text + 'level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"\n',
                     "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok"


# Triton's metrics finding GPUs through NVML, with the serving container's spec pasted beside them: the server in that
# container reached the GPUs (corpus 1817). Real: https://github.com/triton-inference-server/server/issues/4197 (the
# issue body, SinVl, 2022-04-10): the manifest, and on the node that fails NVML cannot start.
TRITON_4197_SPEC = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: triton
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: triton
          image: "nvcr.io/nvidia/tritonserver:21.06-py3"
          command: ["tritonserver"]
          args: ["--model-repository=/models", "--strict-model-config=true", "--log-verbose=4"]
"""
TRITON_4197_FAILED = TRITON_4197_SPEC + """
Error: Failed to initialize NVML
W0410 11:55:36.155360 1 metrics.cc:214] DCGM unable to start: DCGM initialization error
"""
# Modelled on https://github.com/triton-inference-server/server/issues/5513's pod log: the metrics line of a T4, beside
# the containers list of 4197's manifest pasted alone (its resources not shown). A whole manifest without a GPU
# request stays an issue: the GPU then reached the container outside the device plugin's allocation.
TRITON_METRICS = TRITON_4197_SPEC[TRITON_4197_SPEC.index("      containers:"):] + """
I0316 14:16:51.173524 93 metrics.cc:864] Collecting metrics for GPU 0: Tesla T4
"""


def test_triton_metrics_beside_its_spec_is_ok(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TRITON_METRICS, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and "Triton's metrics" in r.message
    assert capture_checks("1817", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"


def test_triton_nvml_failing_beside_its_spec_is_not_ok(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, TRITON_4197_FAILED, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"


# Modelled on the scheduler's per-node counts: every node weighed short of nvidia.com/gpu, or the refusal counts fewer
# nodes short of GPUs than it weighed and the rest short of CPU or memory (the GPU node may be one of those).
_EVERY_NODE_SHORT = "0/3 nodes are available: 3 Insufficient memory, 3 Insufficient nvidia.com/gpu."
_OTHER_NODE_SHORT = "0/13 nodes are available: 3 Insufficient nvidia.com/gpu, 10 Insufficient cpu."


def test_insufficient_gpu_reads_the_whole_count_line() -> None:
    def hit(line: str) -> bool:
        return any(h.symptom.name == "k8s-insufficient-gpu" for h in find_symptoms([line]))
    assert hit(_EVERY_NODE_SHORT)
    assert not hit(_OTHER_NODE_SHORT)
    # A node refused for a taint or a cordon is not a node short of CPU or memory: the refusal stands (corpus 2124).
    assert hit("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.")


def test_corpus_2582_gpu_node_may_be_short_of_cpu() -> None:
    # Real: 2 nodes, 1 short of CPU, 1 of nvidia.com/gpu, both of memory: whether the T4 node offers its GPU is open.
    assert capture_checks("2582", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
    # Real: the only node short of nvidia.com/gpu (and tainted): the refusal stands.
    assert capture_checks("2581", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"
    assert capture_checks("1005", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"
