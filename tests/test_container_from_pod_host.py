"""container and CTR-IPC-ISOLATION: NCCL lines logged from a Kubernetes pod's name (a generated `-xxxxx` suffix of
k8s' rand alphabet, or a name that calls itself a pod) show a run in that pod, whose containers share one IPC
namespace; a machine's own name does not."""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.serving_logs import ServingLog, is_pod_name, parse_serving_log


@pytest.mark.parametrize("name", ["task-7701-z5h6w", "lax-ai-vllm-model-78d9c658c8-qlw8z", "leader-h2nng",
                                  "nccl-test-545c9b9fd4-dvp4k", "h100-pod", "demo-ai-xtuner-pod",
                                  "udf-pod-32018-0-7603cf5fec6ff1e5"])
def test_pod_names_of_the_corpus(name: str) -> None:
    assert is_pod_name(name)


@pytest.mark.parametrize("name", ["node08", "gpu-node-03", "tj5-sc-ai-h800r-dev01", "deepseek-yanfa", "dgx-h100a",
                                  "build-strng", "pod1-dgx01", "superpod-node01", "c2ce1c877ea3"])
def test_machine_names_are_no_pods(name: str) -> None:
    # Modelled: a vowel, a 0, 1 or 3, no digit or no letter in the last five characters, or `pod` inside a word.
    assert not is_pod_name(name)


def test_kubectl_viewer_frame_pod_host() -> None:
    # NVIDIA/nccl#733 (corpus 1314): k9s/kubectl view's `│ ` before each line; the pod's two ranks (2, 3) log from
    # task-7701-z5h6w and reach rank 4 on another node over IB.
    info = fact(pasted(body("1314")), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "kubernetes"
    assert "task-7701-z5h6w" in info.evidence[0]
    log = parse_serving_log(body("1314"))
    assert log.pod_host() == "task-7701-z5h6w" and log.ipc_group() == (2, 3)
    r = capture_checks("1314", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "pod task-7701-z5h6w" in r.message


@pytest.mark.parametrize("prefix, ranks", [("772", (0, 1, 2, 3)), ("901", (0, 1)), ("856", (0, 1))])
def test_whole_job_in_one_pod(prefix: str, ranks: tuple[int, ...]) -> None:
    # Corpus 772 (`nNodes 1 localRanks 4`), 901 (rank 0 and 1 of nranks 2, one commId), 856 (demo-ai-xtuner-pod):
    # every rank logs from one pod, so all share its IPC namespace.
    log = fact(pasted(body(prefix)), "serving_log")
    assert isinstance(log, ServingLog) and log.pod_whole() == ranks
    r = capture_checks(prefix, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "logs from pod" in r.message


def test_modelled_machine_named_log_is_not_a_pod() -> None:
    # Modelled: corpus 1314's lines under a machine's name (`gpu-node-03`) show no container and group nothing.
    text = body("1314").replace("task-7701-z5h6w", "gpu-node-03")
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)
    log = parse_serving_log(text)
    assert log.pod_host() == "" and log.ipc_group() == ()


def test_modelled_two_pods_are_two_hosts() -> None:
    # Modelled: two pod names are a multi-node run; no one pod is named.
    text = ("a-7b94f88dfd-dxs9c:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0\n"
            "b-7b94f88dfd-fwl2w:2:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via NET/Socket/0\n")
    assert parse_serving_log(text).pod_host() == ""


def test_user_runs_engine_docker() -> None:
    # ollama/ollama#5567 (corpus 1330): "When I run Ollama docker" puts ollama in a Docker container.
    info = fact(pasted(body("1330")), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "docker"
    assert "run Ollama docker" in info.evidence[0]


def test_modelled_engine_docker_desktop_words_are_no_container() -> None:
    # Modelled: `running ollama docker desktop` names Docker's product, not the engine's container.
    text = "I am running ollama docker desktop on my laptop and the model is slow today\n"
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


@pytest.mark.parametrize("name, pod", [
    ("job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0", True),  # corpus 1368 (NVIDIA/nccl#1538)
    ("kubeflow-pytorch-gpu-dist-job-master-0", True),  # kubeflow/pytorch-operator#202
    # Modelled: machines named by role, no `job` word nor a drawn id in the job's part.
    ("gpu-worker-3", False), ("k8s-master-0", False), ("cluster01-master-0", False), ("pytorch-dist-worker-7", False)])
def test_training_operator_pod_names(name: str, pod: bool) -> None:
    assert is_pod_name(name) is pod


def test_operator_pod_without_channel_lines() -> None:
    # Corpus 1368: five processes on GPUs 0, 2, 5, 6, 7 log from one PyTorchJob worker pod; only affinity and NVLS
    # lines, no channel line, so no rank group: the processes still share the pod's IPC namespace.
    log = parse_serving_log(body("1368"))
    assert log.pod_host().endswith("-worker-0") and log.ipc_group() == ()
    r = capture_checks("1368", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "pod's IPC namespace" in r.message
    # Modelled: the same lines under a machine's name say nothing.
    text = body("1368").replace("job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0", "gpu-worker-3")
    assert parse_serving_log(text).pod_host() == ""
