"""The NVIDIA device plugin's pod in a restart loop, and the container runtime's own hook stuck.

A device plugin pod in CrashLoopBackOff while its image, run by hand with the nvidia runtime, reaches NVML: the pods the
kubelet starts are not handed the driver (nvidia is not the node's default runtime): CTR-GPU-ACCESS issue (corpus
1386). The plugin's restart loop alone says not why it exits: undecided (corpus 1387, 1392). The runtime's hook
`nvidia-container-cli configure` caught by top at 100 % CPU is stuck setting up a container's GPUs: issue (corpus
1393). Rows of `kubectl get pods` pasted without the table's header are read where one shows CrashLoopBackOff. The
lines are real, from the thread named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.k8s_pods import parse_k8s_pods
from stackaudit.facts.symptoms import CTK_HOOK_STUCK

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/k8s-device-plugin#13 (corpus 1386), without the '> ' quote marks.
PLUGIN_LOOP = """\
NAME                                   READY     STATUS             RESTARTS   AGE
nvidia-device-plugin-daemonset-csjxw   0/1       CrashLoopBackOff   12         39m
"""
BY_HAND = """
`docker run --runtime=nvidia -it -v /var/lib/kubelet/device-plugins:/var/lib/kubelet/device-plugins nvidia/k8s-device-plugin:1.8`
2017/12/08 06:41:44 Loading NVML
2017/12/08 06:41:45 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock
2017/12/08 06:41:45 Registered device plugin with Kubelet
"""
# Modelled on it: the same image run by hand with runc, no GPU request.
BY_HAND_RUNC = """
`docker run -it -v /var/lib/kubelet/device-plugins:/var/lib/kubelet/device-plugins nvidia/k8s-device-plugin:1.8`
"""
# NVIDIA/k8s-device-plugin#77 (corpus 1393): top's hook row, and one `-o wide` row without the table's header.
HOOK_ROW = (" 4535 nfsnobo+  20   0  149972   6444   5060 R 100.0  0.0  5124119h /usr/bin/nvidia-container-cli "
            "--load-kmods configure --ldconfig=@/sbin/ldconfig --device=all --utility --pid=4522 "
            "/var/lib/docker/overlay2/835617425b6b/merged")
HEADERLESS_ROW = ("kube-system    nvidia-device-plugin-daemonset-tjxxw        0/1       CrashLoopBackOff    6          "
                  "15m       0/0        10.99.224.92    ec-0d-9a-d9-96-c2")


def test_the_device_plugin_pod_is_known_by_its_name() -> None:
    (pod,) = parse_k8s_pods(PLUGIN_LOOP).pods
    assert pod.device_plugin and pod.failing and not pod.gpu_provider
    # The Helm chart's names carry a revision (corpus 1146).
    helm = parse_k8s_pods("nvidia-device-plugin-1655230975-wvvnp   0/1     CrashLoopBackOff   438 (3m9s ago)   37h")
    assert helm.failing_plugin() is not None


def test_a_plugin_that_runs_by_hand_with_nvidia_but_loops_as_a_pod(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, PLUGIN_LOOP + BY_HAND, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "nvidia-device-plugin-daemonset-csjxw" in result.message and "default runtime" in result.message
    assert capture_checks("1386", ACCESS)[ACCESS].status == "issue"


def test_a_plugin_loop_alone_or_a_hand_run_without_nvidia_decides_nothing(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, PLUGIN_LOOP, ACCESS)[ACCESS].status not in ("ok", "issue")
    runc = paste_checks(tmp_path, PLUGIN_LOOP + BY_HAND_RUNC, ACCESS)[ACCESS]
    assert "default runtime" not in runc.message
    assert capture_checks("1392", ACCESS)[ACCESS].status == "unknown"


def test_the_runtime_hook_spinning_in_top() -> None:
    assert CTK_HOOK_STUCK.search(HOOK_ROW)
    # The hook at rest (S, no CPU) is a start caught in passing, no fault.
    assert not CTK_HOOK_STUCK.search(HOOK_ROW.replace(" R 100.0 ", " S   0.0 "))
    assert capture_checks("1393", ACCESS)[ACCESS].status == "issue"


def test_a_headerless_crashloop_row_is_read_as_a_pod_listing(tmp_path: Path) -> None:
    from stackaudit.importers.k8s_pods import k8s_pod_listing

    lines = ["some prose", HEADERLESS_ROW, "more prose"]
    (found,) = list(k8s_pod_listing(lines))
    assert (found.start, found.end) == (1, 2)
    (pod,) = parse_k8s_pods(HEADERLESS_ROW).pods
    assert pod.name == "nvidia-device-plugin-daemonset-tjxxw" and pod.failing
    # A Running row without a header is not read: it names no table.
    assert not list(k8s_pod_listing([HEADERLESS_ROW.replace("CrashLoopBackOff", "Running")]))


# NVIDIA's images and ollama's set NVIDIA_VISIBLE_DEVICES=all in their own environment: `runtime: nvidia` alone hands
# them every GPU (corpus 1065). Modelled on it: the same service on ollama's ROCm tag, a stage without the variable.
OLLAMA_COMPOSE = """\
services:
  ollama-1:
    image: ollama/ollama:0.6.6
    container_name: ollama-inference1
    runtime: nvidia
    environment:
      - CUDA_VISIBLE_DEVICES=0
"""


def test_images_whose_own_env_asks_for_every_gpu() -> None:
    from stackaudit.facts.docker import _GPU_ENV_IMAGE

    assert _GPU_ENV_IMAGE.match("ollama/ollama:0.6.6") and _GPU_ENV_IMAGE.match("ollama/ollama")
    assert _GPU_ENV_IMAGE.match("nvidia/k8s-device-plugin:1.8")
    assert not _GPU_ENV_IMAGE.match("ollama/ollama:rocm") and not _GPU_ENV_IMAGE.match("ollama/ollama:0.6.6-rocm")


def test_ollama_with_the_nvidia_runtime_is_given_the_gpus(tmp_path: Path) -> None:
    # Read as a GPU request (the image's NVIDIA_VISIBLE_DEVICES under the nvidia runtime), which alone shows no GPU
    # inside (unknown, issue 28 h121c); a ROCm tag's image sets no such variable: a container without a request.
    assert "request GPUs:" in paste_checks(tmp_path, OLLAMA_COMPOSE, ACCESS)[ACCESS].message
    rocm = OLLAMA_COMPOSE.replace("ollama/ollama:0.6.6", "ollama/ollama:rocm")
    assert "request GPUs:" not in paste_checks(tmp_path, rocm, ACCESS)[ACCESS].message
    assert "request GPUs: ollama-inference1 (all)" in capture_checks("1065", ACCESS)[ACCESS].message
