"""`kubectl describe pod` read as the pod's state (facts/k8s_pods.described_pods): the status `kubectl get pods` would
print for it, from its phase and its containers' states, so that a described GPU Operator pod counts as its listing row
would."""

from __future__ import annotations

from tests.corpus import CAPTURES_DIR

from stackaudit.facts.k8s_pods import described_pods, parse_k8s_pods
from stackaudit.facts.sources import K8S_PODS, K8S_SPEC
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

_HEAD = """Name:                 {name}
Namespace:            gpu-operator-resources
Priority:             2000001000
Priority Class Name:  system-node-critical
Node:                 node-1/10.0.0.24
Labels:               app={app}
Status:               {phase}
IP:                   10.1.47.71
Controlled By:  DaemonSet/{app}
"""


def _init(name: str, state: str) -> str:
    return (f"Init Containers:\n  {name}:\n    Image:         nvcr.io/nvidia/cloud-native/{name}:v0.6.2\n"
            f"    Command:\n      driver-manager\n{state}")


def test_real_driver_pod_init_crashloop_is_failing() -> None:
    # NVIDIA/gpu-operator#258 (corpus 1647): Pending, its k8s-driver-manager init container Waiting in CrashLoopBackOff.
    text = _HEAD.format(name="nvidia-driver-daemonset-v5gqj", app="nvidia-driver-daemonset", phase="Pending") + _init(
        "k8s-driver-manager", "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:\n")
    (pod,) = described_pods(text.splitlines())
    assert pod.status == "Init:CrashLoopBackOff"
    assert pod.gpu_provider and pod.failing
    assert parse_k8s_pods(text).failing_provider() == pod
    assert pod.line.startswith("gpu-operator-resources nvidia-driver-daemonset-v5gqj ")


def test_real_driver_container_waiting_after_init_completed() -> None:
    # NVIDIA/gpu-operator#457 (corpus 1207's thread): the init container Completed, exit 0, then nvidia-driver-ctr
    # restarted; the excerpt is cut in its State, the rest modelled on the thread's title (it fails to start).
    text = _HEAD.format(name="nvidia-driver-daemonset-7kdwc", app="nvidia-driver-daemonset", phase="Running") + _init(
        "k8s-driver-manager", "    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0\n"
        "    Ready:          True\n    Restart Count:  0\n") + (
        "Containers:\n  nvidia-driver-ctr:\n    Image:         nvcr.io/nvidia/driver:515-signed-ubuntu20.04\n"
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n"
        "      Reason:       Error\n      Exit Code:    1\n    Ready:          False\n    Restart Count:  4\n")
    (pod,) = described_pods(text.splitlines())
    assert (pod.status, pod.ready, pod.restarts) == ("CrashLoopBackOff", "0/1", "4")
    assert "nvidia-driver-ctr: Waiting, CrashLoopBackOff" in pod.line


def test_real_indented_device_plugin_pod_held_in_its_init_container() -> None:
    # NVIDIA/gpu-operator#448: the describe indented three columns, Pending, toolkit-validation still running
    # (its State modelled: the excerpt is cut at its image).
    text = "".join("   " + line + "\n" for line in (
        _HEAD.format(name="nvidia-device-plugin-daemonset-jzlbm", app="nvidia-device-plugin-daemonset",
                     phase="Pending") + _init("toolkit-validation", "    State:          Running\n")).splitlines())
    (pod,) = described_pods(text.splitlines())
    assert pod.status == "Init:0/1" and not pod.failing and pod.device_plugin


def test_real_running_pod_cut_in_its_init_container_keeps_its_phase() -> None:
    # Corpus 1802 (NVIDIA/gpu-operator#945) and nebuly-ai/nos#21: Running, cut inside the init container before its
    # State: what the init container did is not shown, so the phase stands.
    entry = next(CAPTURES_DIR.glob("1802-*"))
    host = load_pasted([str(entry)])
    assert "k8s pod (lines 2-29)" in host.record.meta["recognised"]
    text = _HEAD.format(name="nvidia-device-plugin-daemonset-md7t8", app="nvidia-device-plugin-daemonset",
                        phase="Running") + _init("toolkit-validation", "    Args:\n")
    (pod,) = described_pods(text.splitlines())
    assert (pod.status, pod.ready, pod.restarts) == ("Running", "", "")


def test_modelled_completed_init_and_running_container_is_not_failing() -> None:
    # Modelled: the driver pod up, its init container done and its driver container running.
    text = _HEAD.format(name="nvidia-driver-daemonset-abcde", app="nvidia-driver-daemonset", phase="Running") + _init(
        "k8s-driver-manager", "    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0\n") + (
        "Containers:\n  nvidia-driver-ctr:\n    Image:         nvcr.io/nvidia/driver:550.54.15-ubuntu22.04\n"
        "    State:          Running\n    Ready:          True\n    Restart Count:  0\n")
    (pod,) = described_pods(text.splitlines())
    assert (pod.status, pod.ready) == ("Running", "1/1")
    assert parse_k8s_pods(text).failing_provider() is None
    found = recognise(text)
    assert [kind for kind, _, _ in found.recognised] == ["k8s pod"]
    assert K8S_PODS.name in found.record.docs and K8S_SPEC.name in found.record.docs


def test_modelled_describe_cut_before_its_status_is_not_read() -> None:
    # Modelled: the head of a describe without its Status line says nothing of the pod's state.
    text = "Name:                 nvidia-driver-daemonset-abcde\nNamespace:            gpu-operator\n"
    assert described_pods(text.splitlines()) == []


def test_describe_cut_before_its_containers_with_its_node_is_a_pod_spec() -> None:
    # NVIDIA/gpu-operator#331 (corpus 2112): the operator's pod described up to its annotations, its node shown.
    head = ("Name:                 gpu-operator-566644fc46-2znxj\nNamespace:            openshift-operators\n"
            "Priority:             2000001000\nNode:                 ip-10-0-0-1.ec2.internal/10.0.0.1\n"
            "Labels:               name=gpu-operator\nAnnotations:          alm-examples:\n                        [\n")
    found = recognise(head)
    assert [kind for kind, _, _ in found.recognised] == ["k8s pod"]
    assert "nodeName: ip-10-0-0-1.ec2.internal" in found.record.docs[K8S_SPEC.name]
    # Modelled: a pending pod (`Node: <none>`) cut so shows no pod the node runs: not read.
    assert not recognise(head.replace("ip-10-0-0-1.ec2.internal/10.0.0.1", "<none>")).recognised
