"""Kubernetes and container evidence of a workload that gets no GPU.

`kubectl describe pod` is read as the pod manifest it describes (importers/container_specs.py `_describe_pod`):
a pod its status shows not scheduled holds no GPU, so CTR-GPU-ACCESS is never ok there. The scheduler's
`Insufficient nvidia.com/gpu`, GPU feature discovery's `-MIG-INVALID` product and `gpu.count` 0 labels, the MIG
manager's `mig.config.state` failed label and ollama's "no GPU" lines inside a container are symptoms of
facts/symptoms.py. The lines are real, from the public thread named beside each; modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container_specs import containers_from_k8s
from stackaudit.facts.sources import K8S_SPEC
from stackaudit.importers.recognition import recognise

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/k8s-device-plugin#33 (AjayZinngg, 2019-02-14): `kubectl describe pods`, indented two columns, cut after the
# first container's mounts.
DESCRIBE_33 = """\
  Name:           xyz-v1-5c5b57cf9c-kvjxn
  Namespace:      default
  Node:           <none>
  Labels:         app=xyz
                  pod-template-hash=1716137957
                  version=v1
  Annotations:    <none>
  Status:         Pending
  IP:             \n  Controlled By:  ReplicaSet/xyz-v1-5c5b57cf9c
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
        --model_base_path=gs://xyz_kuber_app-xyz-identification/export/
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
"""
# NVIDIA/k8s-device-plugin#102 (roclark, 2019-03-14): a pod of `sleep`, no GPU limit in its description, not scheduled.
DESCRIBE_102 = """\
Name:         gpu-pod
Namespace:    default
Node:         <none>
Labels:       <none>
Annotations:  <none>
Status:       Pending
IP:
Containers:
  cuda-container:
    Image:      nvidia/cuda:9.0-base
    Port:       <none>
    Host Port:  <none>
    Command:
      sleep
    Args:
      100000
    Environment:  <none>
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from default-token-k95tg
(ro)
Conditions:
  Type           Status
  PodScheduled   False
"""
# NVIDIA/k8s-device-plugin#119 (Niuxiaotong, 2019-06-04): the event of `kubectl describe pod gpu-gtx-1050`.
EVENT_119 = """\
Events:
 Warning FailedScheduling  40s (x2 over 40s)  default-scheduler  0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.
"""
# NVIDIA/k8s-device-plugin#283 (HirazawaUi, 2021-12-07): the event of a cuda-vector-add pod on OpenShift 3.11.
EVENT_283 = ("  Warning  FailedScheduling  3s (x5 over 9s)  default-scheduler  0/6 nodes are available: 3 node(s) didn't "
             "match node selector, 6 Insufficient nvidia.com/gpu.\n")
# Modelled: the same pod placed and running on a GPU node (its events show nothing failing).
DESCRIBE_RUNNING = """\
Name:             triton-inference-server-5b6c7f889c-f54c6
Namespace:        default
Node:             gpu-node-1/10.0.0.5
Status:           Running
Containers:
  triton-server:
    Image:       nvcr.io/nvidia/tritonserver:24.05-py3
    Command:
      tritonserver
    Args:
      --model-repository=/models
    Limits:
      nvidia.com/gpu:  1
    Requests:
      nvidia.com/gpu:  1
    Mounts:
      /models from model-repository (rw)
Conditions:
  Type              Status
  Initialized       True
  Ready             True
  ContainersReady   True
  PodScheduled      True
Volumes:
  model-repository:
    Type:          HostPath (bare host directory volume)
    Path:          /srv/models
    HostPathType:
QoS Class:         BestEffort
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  2m    default-scheduler  Successfully assigned default/triton-inference-server-5b6c7f889c-f54c6 to gpu-node-1
"""
# Modelled: a pod kept off the only node by a taint: the scheduler names no GPU shortage.
EVENT_TAINT = ("  Warning  FailedScheduling  12s  default-scheduler  0/1 nodes are available: 1 node(s) had untolerated "
               "taint {node-role.kubernetes.io/control-plane: }.\n")


def _issue(tmp_path: Path, text: str, check: str) -> bool:
    """Whether `check` is an issue on `text` (a paste with nothing recognisable in it is none)."""
    return bool(recognise(text).recognised) and paste_checks(tmp_path, text, check)[check].status == "issue"


def _containers(text: str) -> list[object]:
    doc = recognise(text).record.docs.get(K8S_SPEC.name, "")
    return list(containers_from_k8s(doc).containers) if doc else []


def test_corpus_712_a_pending_pod_asking_for_a_gpu_is_not_ok() -> None:
    # Corpus 712: NVIDIA/k8s-device-plugin#430, its describe output cut before the Events.
    results = capture_checks("712", ACCESS, "CTR-K8S-GPU-TOPOLOGY")
    assert results[ACCESS].status == "unknown", results[ACCESS].message
    assert "not scheduled" in results[ACCESS].message
    assert results["CTR-K8S-GPU-TOPOLOGY"].status == "not-applicable"


def test_describe_33_reads_image_command_and_limits(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, DESCRIBE_33, ACCESS)[ACCESS]
    assert result.status == "unknown" and "not scheduled" in result.message, result.message
    (ctr,) = _containers(DESCRIBE_33)
    assert ctr.image == "tensorflow/serving:1.11.1-gpu"  # type: ignore[attr-defined]
    assert ctr.argv[:2] == ("/usr/bin/tensorflow_model_server", "--port=9000")  # type: ignore[attr-defined]
    assert ctr.gpu_count == 1 and ctr.nano_cpus == 4_000_000_000  # type: ignore[attr-defined]
    assert ctr.unscheduled  # type: ignore[attr-defined]


def test_describe_102_without_a_gpu_limit_asks_for_none() -> None:
    (ctr,) = _containers(DESCRIBE_102)
    assert ctr.argv == ("sleep", "100000") and not ctr.gpu_requested  # type: ignore[attr-defined]
    assert ctr.unscheduled  # type: ignore[attr-defined]


def test_insufficient_gpu_events_prove_the_issue(tmp_path: Path) -> None:
    for text in (EVENT_119, EVENT_283, DESCRIBE_33 + EVENT_119):
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status == "issue", (text, result.message)
        assert "Insufficient nvidia.com/gpu" in result.message


def test_modelled_a_running_pod_and_a_taint_are_not_the_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, DESCRIBE_RUNNING, ACCESS)[ACCESS]
    # Judged on its request (alone no GPU inside: unknown, issue 28 h121c), not as unscheduled.
    assert result.status == "unknown" and "request GPUs:" in result.message, result.message
    (ctr,) = _containers(DESCRIBE_RUNNING)
    assert not ctr.unscheduled  # type: ignore[attr-defined]
    assert not _issue(tmp_path, EVENT_TAINT, ACCESS)


# --- node labels of GPU feature discovery and the MIG manager ----------------------------------------------------

# NVIDIA/k8s-device-plugin#1501 (Alja9, 2025-11-12): a healthy H100 node's labels as `kubectl describe node` prints them.
LABELS_1501 = """\
                    nvidia.com/gpu.count=8
                    nvidia.com/gpu.family=hopper
                    nvidia.com/gpu.memory=81559
                    nvidia.com/gpu.present=true
                    nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
                    nvidia.com/gpu.replicas=1
                    nvidia.com/mig.capable=true
"""
# Mellanox/network-operator#211 (Kaka1127): an A100 40GB node's labels under the mixed MIG strategy (YAML).
LABELS_211 = """\
      nvidia.com/gpu.family: ampere
      nvidia.com/gpu.memory: "40536"
      nvidia.com/gpu.present: "true"
      nvidia.com/gpu.product: A100-PCIE-40GB
      nvidia.com/mig-1g.5gb.count: "4"
      nvidia.com/mig-1g.5gb.memory: "4864"
      nvidia.com/mig-2g.10gb.count: "2"
"""
# Modelled: the MIG manager's state label in the three spellings a paste shows.
STATE_FAILED = ('"nvidia.com/mig.config": "all-1g.10gb",\n"nvidia.com/mig.config.state": "failed",\n',
                "    nvidia.com/mig.config.state: failed\n", "                    nvidia.com/mig.config.state=failed\n")


def test_corpus_714_mig_invalid_labels() -> None:
    # Corpus 714: NVIDIA/gpu-operator#603, `kubectl get node -o json | jq` of an A100 80GB given all-1g.5gb.
    results = capture_checks("714", "MEM-MIG", ACCESS)
    assert results["MEM-MIG"].status == "issue" and "MIG-INVALID" in results["MEM-MIG"].message
    assert results[ACCESS].status == "issue" and "gpu.count" in results[ACCESS].message


def test_mig_invalid_in_each_label_spelling(tmp_path: Path) -> None:
    # The label values of GFD's own mig-strategy tests (MOCKMODEL-MIG-INVALID, count 0), as describe node prints them.
    text = "                    nvidia.com/gpu.count=0\n                    nvidia.com/gpu.product=MOCKMODEL-MIG-INVALID\n"
    results = paste_checks(tmp_path, text, "MEM-MIG", ACCESS)
    assert results["MEM-MIG"].status == "issue" and results[ACCESS].status == "issue"


def test_healthy_node_labels_are_no_symptom(tmp_path: Path) -> None:
    for text in (LABELS_1501, LABELS_211):
        assert not _issue(tmp_path, text, "MEM-MIG") and not _issue(tmp_path, text, ACCESS), text


def test_mig_config_state_failed(tmp_path: Path) -> None:
    for text in STATE_FAILED:
        assert paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"].status == "issue", text
    # Modelled: the layout applied (the MIG manager's log line and the label).
    text = ("Current value of 'nvidia.com/mig.config.state=success'\n"
            "    nvidia.com/mig.config.state: success\n")
    assert not _issue(tmp_path, text, "MEM-MIG")


# --- ollama's GPU probe in a container ----------------------------------------------------------------------------

# ollama/ollama#6840 (deardeer7, 2024-09-17): `docker logs` of ollama 0.3.10, no compose prefix.
OLLAMA_6840 = ('time=2024-09-17T15:04:08.215Z level=INFO source=gpu.go:560 msg="no nvidia devices detected" '
               "library=/usr/lib/x86_64-linux-gnu/libcuda.so.550.107.02\n")
# claraverse-space/ClaraVerse#49 (TomThats, 2025-04-29): the ollama container's line, quoted in bold.
CLARA_49 = '**time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"**\n'


def test_corpus_721_ollama_in_compose_without_the_gpu() -> None:
    # Corpus 721: ollama/ollama#1666, Docker Desktop on WSL2, its compose log prefixed `ollama  | `.
    result = capture_checks("721", ACCESS)[ACCESS]
    assert result.status == "issue" and "nvidia-smi command failed" in result.message


def test_ollama_no_gpu_without_a_container_shown_proves_nothing(tmp_path: Path) -> None:
    # On a bare host the same words are a missing driver, not a container's access.
    for text in (OLLAMA_6840, CLARA_49):
        assert not _issue(tmp_path, text, ACCESS), text


def test_ollama_no_gpu_in_a_container_given_gpus(tmp_path: Path) -> None:
    # The ollama line of #6840 under the `docker run` ollama's maintainers ask for (ollama/ollama#2954).
    text = "docker run --rm -it --gpus=all -p 11434:11434 -e OLLAMA_DEBUG=1 ollama/ollama:0.1.29\n" + OLLAMA_6840
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "issue"


def test_modelled_ollama_passing_over_an_old_gpu_is_not_access(tmp_path: Path) -> None:
    text = ('ollama-1  | time=2024-06-01T10:00:00.000Z level=INFO source=gpu.go:262 msg="[0] CUDA GPU is too old. '
            'Compute Capability detected: 3.5"\n'
            'ollama-1  | time=2024-06-01T10:00:00.001Z level=INFO source=gpu.go:350 msg="no compatible GPUs were '
            'discovered"\n')
    assert not _issue(tmp_path, text, ACCESS)


def test_modelled_describe_env_secret_is_redacted_and_argv_kept() -> None:
    text = """\
Name:         vllm-0
Namespace:    default
Node:         gpu-node-2/10.0.0.7
Status:       Running
Containers:
  vllm:
    Image:      vllm/vllm-openai:v0.8.5
    Args:
      --model
      Qwen/Qwen2.5-7B-Instruct
      --tensor-parallel-size
      2
    Limits:
      nvidia.com/gpu:  2
    Environment:
      HF_TOKEN:      hf_modelledsecret
      HF_HOME:       <set to the key 'home' of config map 'hf'>  Optional: false
      VLLM_PORT:     8000
"""
    doc = recognise(text).record.docs.get(K8S_SPEC.name, "")
    assert "hf_modelledsecret" not in doc
    (ctr,) = containers_from_k8s(doc).containers
    assert ctr.tensor_parallel == 2 and ctr.gpu_count == 2 and not ctr.unscheduled
    assert dict(ctr.env).get("VLLM_PORT") == "8000" and "HF_HOME" not in dict(ctr.env)


def test_a_compose_prefix_is_compared_at_its_own_depth() -> None:
    from stackaudit.importers._paste import strip_log_prefix

    # Corpus 721's line, alone between gap lines: its one compose prefix stays (no neighbour of its width).
    line = "ollama  | 2023/12/22 00:13:33 llama.go:407: skipping accelerated runner because num_gpu=0"
    assert strip_log_prefix(line, "...", ())[0] == line
    # The same line behind another service's prefix: only the outer one is compared with the lines around it.
    got, _, taken, _ = strip_log_prefix("web  | " + line, "web  | ...", ("web  |",))
    assert got == line and taken == ("web  |",)
    # Consecutive compose lines lose their prefix, at each depth.
    got, _, taken, _ = strip_log_prefix("web  | " + line, "web  | " + line, ("web  |", "ollama  |"))
    assert got == line.split("| ", 1)[1] and taken == ("web  |", "ollama  |")


def test_device_plugin_refusing_a_mig_gpu_without_mig_devices(tmp_path: Path) -> None:
    # Corpus 1267 (NVIDIA/k8s-device-plugin#253): 0.9.0's panic under the `single` strategy.
    assert capture_checks("1267", "MEM-MIG")["MEM-MIG"].status == "issue"
    # The line of the current plugin (internal/lm/mig-strategy.go), as klog prints it (modelled around the real text).
    text = ("E0612 14:52:38.340639 135 main.go:132] error starting plugins: error getting plugins: invalid MIG "
            "configuration: at least one device with migEnabled=true was not configured correctly: error visiting "
            "device: device 0 has an invalid MIG configuration\n")
    res = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert res.status == "issue" and "device plugin" in res.message


# Modelled on corpus 2579 (vllm-project/vllm#21979): a pod spec's containers list cut before its resources, vLLM
# serving in it, and CUDA's 803 in its log; the counter-example runs no engine in the pod shown (a shell's sleep).
_POD_PIECE = """\
```
containers:
        - name: {name}
          image: {image}
          command: ["/bin/sh", "-c"]
          args:
            - |
              {run}
```
"""
_ERROR_803 = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 803: system has "
              "unsupported display driver / cuda driver combination\n")


def test_a_serving_pod_spec_puts_its_engine_in_a_container(tmp_path: Path) -> None:
    serving = _POD_PIECE.format(name="vllm", image="vllm/vllm-openai:latest", run="vllm serve google/gemma-4b-it")
    assert paste_checks(tmp_path, serving + _ERROR_803, ACCESS)[ACCESS].status == "issue"
    idle = _POD_PIECE.format(name="debug", image="busybox:1.36", run="sleep infinity")
    assert paste_checks(tmp_path, idle + _ERROR_803, ACCESS)[ACCESS].status != "issue"


def test_corpus_2579_error_803_in_the_vllm_pod() -> None:
    assert capture_checks("2579", ACCESS)[ACCESS].status == "issue"
