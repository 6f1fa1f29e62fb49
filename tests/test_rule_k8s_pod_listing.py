"""Kubernetes pod listings (`kubectl get pods`) and pod events, and the GPU Operator's driver pod.

The GPU Operator's driver or toolkit pod in a restart loop (CrashLoopBackOff, Error, Init:CrashLoopBackOff, or kubelet's
`Back-off restarting failed container` in its events) means no pod on the node is given a GPU: CTR-GPU-ACCESS issue,
the row quoted (corpus 1207). A listing is no container spec: a Running row gives no ok. nvidia-smi run in the driver
pod by `kubectl exec` that lists the GPU shows the driver answers (corpus 1211). The user's words that they start
ollama's service put it on the host (corpus 1204). The lines are real, from the thread named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import stated_host
from stackaudit.facts.k8s_pods import parse_k8s_pods, table_end

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/gpu-operator#277 (corpus 1173), the table's head.
LISTING = """\
k get pods -n gpu-operator-resources
NAME                                       READY   STATUS                  RESTARTS   AGE
gpu-feature-discovery-xnr6v                1/1     Running                 0          43m
nvidia-container-toolkit-daemonset-b56sg   1/1     Running                 0          43m
"""
# Modelled on it: the driver pod in a restart loop, with kubectl 1.22's restart column.
DRIVER_CRASHING = """\
NAME                                       READY   STATUS             RESTARTS        AGE
gpu-feature-discovery-xnr6v                0/1     Init:0/1           0               43m
nvidia-driver-daemonset-8cdkq              0/1     CrashLoopBackOff   12 (2m ago)     43m
"""
# Modelled: the toolkit pod whose init container keeps failing.
TOOLKIT_INIT_CRASHING = """\
NAMESPACE      NAME                                       READY   STATUS                  RESTARTS   AGE
gpu-operator   nvidia-container-toolkit-daemonset-b56sg   0/1     Init:CrashLoopBackOff   7          20m
"""
# NVIDIA/gpu-operator#457 (corpus 1207), the Events rows of `kubectl describe pod`.
EVENTS = """\
  Normal   Created    13m (x4 over 15m)   kubelet            Created container nvidia-driver-ctr
  Normal   Started    13m (x4 over 15m)   kubelet            Started container nvidia-driver-ctr
  Warning  BackOff    39s (x71 over 14m)  kubelet            Back-off restarting failed container
"""
# Modelled: a serving pod (not the operator's) in a restart loop: no statement about the GPU stack.
OTHER_CRASHING = """\
NAME                     READY   STATUS             RESTARTS   AGE
vllm-7d9f8b6c4-x2x9k     0/1     CrashLoopBackOff   5          10m
"""


def test_a_listing_is_read_row_by_row() -> None:
    lines = LISTING.splitlines()
    assert table_end(lines, 1) == 4
    assert table_end(lines, 0) == 0
    pods = parse_k8s_pods(LISTING).pods
    assert [(p.name, p.status) for p in pods] == [("gpu-feature-discovery-xnr6v", "Running"),
                                                  ("nvidia-container-toolkit-daemonset-b56sg", "Running")]
    assert parse_k8s_pods(DRIVER_CRASHING).pods[1].restarts == "12 (2m ago)"
    assert parse_k8s_pods(TOOLKIT_INIT_CRASHING).pods[0].status == "Init:CrashLoopBackOff"


def test_the_back_off_event_names_the_container_created_again_and_again() -> None:
    (looping,) = parse_k8s_pods(EVENTS).pods
    assert (looping.name, looping.status) == ("nvidia-driver-ctr", "CrashLoopBackOff")
    assert looping.line.startswith("Warning  BackOff")


def test_a_crashing_driver_or_toolkit_pod_hides_the_gpus(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, DRIVER_CRASHING, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "nvidia-driver-daemonset-8cdkq" in result.message and "CrashLoopBackOff" in result.message
    result = paste_checks(tmp_path, TOOLKIT_INIT_CRASHING, ACCESS)[ACCESS]
    assert result.status == "issue" and "toolkit" in result.message


def test_a_listing_alone_says_no_ok(tmp_path: Path) -> None:
    # Running rows, or another pod failing, say nothing of what a pod was given.
    assert paste_checks(tmp_path, LISTING, ACCESS)[ACCESS].status not in ("ok", "issue")
    assert paste_checks(tmp_path, OTHER_CRASHING, ACCESS)[ACCESS].status not in ("ok", "issue")


def test_the_corpus_driver_pod_cases() -> None:
    assert capture_checks("1207", ACCESS)[ACCESS].status == "issue"
    # nvidia-smi by `kubectl exec` in the driver pod lists the T4.
    assert capture_checks("1211", ACCESS)[ACCESS].status == "ok"
    assert capture_checks("1204", ACCESS)[ACCESS].status == "not-applicable"


def test_starting_ollamas_service_is_the_host_install() -> None:
    line = "i'm running ollama on ArchLinux. when I start the ollama service and get a status, it shows these logs:"
    assert stated_host(line) == "start the ollama service"
    assert stated_host("I restarted ollama.service") == "restarted ollama.service"
    assert stated_host("I start the ollama service in docker compose") == ""
