"""`kubectl get all` and `oc get all` pod rows, each named by its resource type (`pod/<name>`).

The type is no part of the pod's name: a row `pod/nvidia-driver-daemonset-q45bl 0/1 CrashLoopBackOff 7 18m` is the GPU
Operator's driver pod in a restart loop, CTR-GPU-ACCESS issue, as the same row without `pod/` is (corpus 2004). A row
of a serving pod or a Running driver pod stays no statement about the GPU stack. The lines are real, from the threads
named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.k8s_pods import parse_k8s_pods, table_end

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/gpu-operator#160 (corpus 2004): `oc get all -n gpu-operator-resources`, its pod table's head and last rows.
OC_GET_ALL = """\
(base) coredump@Deceneu GPU % oc get all -n gpu-operator-resources
NAME                                           READY   STATUS             RESTARTS   AGE
pod/nfd-master-bj47q                           1/1     Running            0          29h
pod/nvidia-container-toolkit-daemonset-srf6l   0/1     Init:0/1           0          18m
pod/nvidia-driver-daemonset-q45bl              0/1     CrashLoopBackOff   7          18m

NAME                 TYPE        CLUSTER-IP     EXTERNAL-IP   PORT(S)     AGE
service/nfd-master   ClusterIP   172.21.31.27   <none>        12000/TCP   8d
"""
# NVIDIA/gpu-operator#327: `kubectl get all -A` rows pasted without the table's head, the namespace first.
GET_ALL_A_ROWS = """\
gpu-operator   pod/gpu-feature-discovery-2jn29                                       0/1     Init:0/1                0              99s
gpu-operator   pod/gpu-operator-1646339147-node-feature-discovery-master-64cdng6xd   1/1     Running                 0              62m
"""
# NVIDIA/gpu-operator's OpenShift install guide (docs/openshift, `oc get all -n nvidia-gpu-operator`): an RHCOS driver
# pod named with its kernel's build, two containers, running.
OPENSHIFT_RUNNING = """\
NAME                                                      READY   STATUS      RESTARTS   AGE
pod/nvidia-device-plugin-daemonset-d6jzv                  1/1     Running     0          9m4s
pod/nvidia-driver-daemonset-412.86.202303241612-0-7hnsp   2/2     Running     0          9m16s
"""
# Modelled: a serving deployment's pod in a restart loop, in `kubectl get all` form: no statement about the GPU stack.
SERVING_CRASHING = """\
NAME                           READY   STATUS             RESTARTS   AGE
pod/vllm-7d9f8b6c4-x2x9k       0/1     CrashLoopBackOff   5          10m
"""


def test_the_type_is_no_part_of_the_name() -> None:
    lines = OC_GET_ALL.splitlines()
    assert table_end(lines, 1) == 5
    pods = parse_k8s_pods(OC_GET_ALL).pods
    assert [(p.name, p.status) for p in pods] == [
        ("nfd-master-bj47q", "Running"), ("nvidia-container-toolkit-daemonset-srf6l", "Init:0/1"),
        ("nvidia-driver-daemonset-q45bl", "CrashLoopBackOff")]
    rows = parse_k8s_pods(GET_ALL_A_ROWS).pods
    assert [(p.namespace, p.name) for p in rows] == [
        ("gpu-operator", "gpu-feature-discovery-2jn29"),
        ("gpu-operator", "gpu-operator-1646339147-node-feature-discovery-master-64cdng6xd")]
    driver = parse_k8s_pods(OPENSHIFT_RUNNING).pods[1]
    assert driver.name == "nvidia-driver-daemonset-412.86.202303241612-0-7hnsp" and driver.gpu_provider


def test_the_driver_pod_crashing_in_get_all_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, OC_GET_ALL, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "nvidia-driver-daemonset-q45bl" in result.message


def test_running_or_serving_pods_say_nothing_of_access(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, OPENSHIFT_RUNNING, ACCESS)[ACCESS].status != "issue"
    assert paste_checks(tmp_path, SERVING_CRASHING, ACCESS)[ACCESS].status != "issue"


def test_corpus_2004_is_read() -> None:
    results = capture_checks("2004", ACCESS, "DRV-CUDA-COMPAT")
    assert results[ACCESS].status == "issue"
    assert results["DRV-CUDA-COMPAT"].status == "unknown"
