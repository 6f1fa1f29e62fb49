"""The container runtime's GPU hook refusing a container, and the GPU Operator's pods that do not run.

Every `nvidia-container-cli: detection error: ...` stops the container's start, whatever the hook's probe that failed
(NVML, CUDA, the driver service, a driver file it lists): CTR-GPU-ACCESS issue (corpus 1749). The hook's
`requirement error: unsatisfied condition: cuda>=X` is the driver older than the image's CUDA: DRV-CUDA-COMPAT issue,
not CTR-GPU-ACCESS's (the hook ran and read the driver: the runtime is set up); the hook's own `--require=cuda>=X`
argument is no refusal.
The GPU Operator's validator pods in a restart loop, and its driver or toolkit pod whose image never arrives, are
CTR-GPU-ACCESS issues; its controller or its NFD failing is one only where the operator's namespace, whole in a
`kubectl get pods -A` listing, holds no operand (corpus 1746; not 1658). The lines are real, from the thread named;
modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.k8s_pods import parse_k8s_pods

ACCESS = "CTR-GPU-ACCESS"
COMPAT = "DRV-CUDA-COMPAT"

# NVIDIA/gpu-feature-discovery#11 (corpus 1749): the hook's CUDA probe on a MIG node.
DETECTION_CUDA = "nvidia-container-cli: detection error: cuda error: invalid device ordinal: unknown"
# NVIDIA/nvidia-container-toolkit#266: a driver file the hook lists, gone after a driver update.
DETECTION_OPEN = ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting "
                  "container process caused: process_linux.go:545: container init caused: Running hook #0:: error "
                  "running hook: exit status 1, stdout: , stderr: nvidia-container-cli: detection error: open failed: "
                  "/usr/lib/x86_64-linux-gnu/libnvidia-tls.so.470.86: no such file or directory: unknown.")
# NVIDIA/nvidia-container-toolkit#416: the NVML probe, after toolkit 1.14's mode line.
DETECTION_NVML = ("docker: Error response from daemon: failed to create task for container: failed to create shim task: "
                  "OCI runtime create failed: runc create failed: unable to start container process: error during "
                  "container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
                  "Auto-detected mode as 'legacy'\nnvidia-container-cli: detection error: nvml error: unknown error: "
                  "unknown.")

# NVIDIA/nvidia-docker#1442 (klueska: CUDA 11 needs a host driver of 450 or newer).
REQUIRE_11 = ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: starting container "
              "process caused: process_linux.go:459: container init caused: Running hook #0:: error running hook: exit "
              "status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0, "
              "please update your driver to a newer version, or use an earlier cuda container: unknown.")
# SyneRBI/PETRIC2#27: toolkit 1.14 and later, a CUDA 12.8 image on a 551.78 driver (CUDA 12.4).
REQUIRE_12 = ("docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI "
              "runtime create failed: runc create failed: unable to start container process: error during container "
              "init: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
              "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver "
              "to a newer version, or use an earlier cuda container")
# NVIDIA/nvidia-docker#536: libnvidia-container of 2017 wrote the condition with spaces.
REQUIRE_9 = ("nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0\\\\\\\\n\\\\\\\"\\\"\"")
# NVIDIA/nvidia-docker#663: the hook's own `--require=cuda>=9.0` argument, then a CUDA initialisation failure.
REQUIRE_ARG_ONLY = ("stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure "
                    "--ldconfig=@/sbin/ldconfig.real --device=all --compute --utility --require=cuda>=9.0 --pid=13668 "
                    "/var/lib/docker/aufs/mnt/df276136eced]\\\\nnvidia-container-cli: initialization error: cuda error: "
                    "unknown error\\\\n\\\"\"\": unknown.")


@pytest.mark.parametrize("text", [DETECTION_CUDA, DETECTION_OPEN, DETECTION_NVML])
def test_every_detection_error_stops_the_container(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "could not detect the host's driver" in result.message


def test_the_corpus_detection_error_of_a_mig_node() -> None:
    assert capture_checks("1749", ACCESS)[ACCESS].status == "issue"


@pytest.mark.parametrize("text", [REQUIRE_11, REQUIRE_12, REQUIRE_9])
def test_the_cuda_requirement_refusal_is_the_drivers(tmp_path: Path, text: str) -> None:
    results = paste_checks(tmp_path, text, ACCESS, COMPAT)
    assert results[COMPAT].status == "issue" and "refused the image" in results[COMPAT].message
    # One cause, one finding: the runtime that ran the hook is set up.
    assert results[ACCESS].status != "issue"


def test_the_hooks_own_require_argument_is_no_refusal(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, REQUIRE_ARG_ONLY, ACCESS, COMPAT)
    assert results[COMPAT].status != "issue"
    # The line's own failure is the hook's initialisation, not the requirement.
    assert results[ACCESS].status == "issue" and "refused" not in results[ACCESS].message


# NVIDIA/gpu-operator#545: the CUDA validator and the operator's validator in Init:CrashLoopBackOff beside a running
# driver toolkit and device plugin (the table's rows as pasted, the dcgm-exporter row left out).
VALIDATORS = """\
NAME                                                          READY   STATUS                  RESTARTS       AGE
gpu-feature-discovery-jb9mc                                   1/1     Running                 0              110m
gpu-operator-b6cff4b4b-5lh8j                                  1/1     Running                 0              111m
gpu-operator-node-feature-discovery-master-7db9bfdd5b-mfvqs   1/1     Running                 0              111m
gpu-operator-node-feature-discovery-worker-2wjl2              1/1     Running                 0              111m
nvidia-container-toolkit-daemonset-lh5k8                      1/1     Running                 0              110m
nvidia-cuda-validator-kg6mn                                   0/1     Init:CrashLoopBackOff   6 (26s ago)    6m20s
nvidia-device-plugin-daemonset-l2c24                          1/1     Running                 0              110m
nvidia-operator-validator-pjhbf                               0/1     Init:CrashLoopBackOff   17 (80s ago)   110m
"""
# NVIDIA/gpu-operator#528: two rows without the table's header.
PLUGIN_VALIDATOR = """\
nvidia-device-plugin-validator-whr6m             0/1     Init:CrashLoopBackOff   5 (2m18s ago)   5m25s
nvidia-operator-validator-d5c26                  0/1     Init:CrashLoopBackOff   4 (24s ago)     25m
"""
# NVIDIA/gpu-operator#1848 (OpenShift 4.18), the CUDA validator's rows around it.
CUDA_VALIDATOR_ERROR = """\
NAME                                                  READY   STATUS       RESTARTS        AGE
nvidia-container-toolkit-daemonset-bbgqn              1/1     Running      0               5h48m
nvidia-cuda-validator-wgs28                           0/1     Init:Error   3 (39s ago)     56s
nvidia-device-plugin-daemonset-qd9sd                  1/1     Running      0               5h48m
"""
# Modelled on NVIDIA/gpu-operator#1212 and #388: the driver's image is not pulled.
DRIVER_IMAGE_PULL = """\
NAME                                                            READY   STATUS             RESTARTS   AGE
gpu-operator-58dcc865fd-4ntdb                                   1/1     Running            0          64s
nvidia-driver-daemonset-9k2lx                                   0/1     ImagePullBackOff   0          64s
"""
# Modelled: the whole stack Running.
STACK_RUNNING = VALIDATORS.replace("0/1     Init:CrashLoopBackOff", "1/1     Running              ")
# Modelled: an unrelated pod in CrashLoopBackOff in an -A listing with the operator's namespace whole and empty of
# operands, the operator itself running.
OTHER_CRASHING = """\
NAMESPACE      NAME                                   READY   STATUS             RESTARTS   AGE
gpu-operator   gpu-operator-dd7c784bc-6vxfn           1/1     Running            0          6m19s
kube-system    coredns-588bb58b94-jrm9d               0/1     CrashLoopBackOff   9          24h
"""


@pytest.mark.parametrize("text, pod", [(VALIDATORS, "nvidia-cuda-validator-kg6mn"),
                                       (PLUGIN_VALIDATOR, "nvidia-device-plugin-validator-whr6m"),
                                       (CUDA_VALIDATOR_ERROR, "nvidia-cuda-validator-wgs28")])
def test_a_failing_validator_is_the_operators_own_proof_failing(tmp_path: Path, text: str, pod: str) -> None:
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert pod in result.message and "validator" in result.message


def test_the_plugins_validator_is_no_plugin() -> None:
    validator, _ = parse_k8s_pods(PLUGIN_VALIDATOR).pods
    assert validator.role == "validator" and not validator.device_plugin


def test_a_driver_whose_image_never_arrives(tmp_path: Path) -> None:
    assert parse_k8s_pods(DRIVER_IMAGE_PULL).failing_provider() is not None
    result = paste_checks(tmp_path, DRIVER_IMAGE_PULL, ACCESS)[ACCESS]
    assert result.status == "issue" and "ImagePullBackOff" in result.message


def test_a_running_stack_or_another_pod_failing_decides_nothing(tmp_path: Path) -> None:
    for text in (STACK_RUNNING, OTHER_CRASHING):
        assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status not in ("ok", "issue")


def test_the_operator_failing_with_no_operand_in_its_whole_namespace() -> None:
    # NVIDIA/gpu-operator#488 (corpus 1746): the operator and its NFD master crash-loop, kube-system's rows follow.
    result = capture_checks("1746", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "gpu-operator-dd7c784bc-6vxfn" in result.message and "holds no driver" in result.message
    # NVIDIA/gpu-operator#624 (corpus 1658): a `-n gpu-operator` listing, its operands maybe cut: undecided.
    assert capture_checks("1658", ACCESS)[ACCESS].status == "unknown"


def test_the_namespace_must_be_shown_whole(tmp_path: Path) -> None:
    # Modelled on corpus 1746: the listing cut inside the operator's namespace (no row of another namespace after).
    cut = """\
NAMESPACE      NAME                                                              READY   STATUS             RESTARTS      AGE
gpu-operator   gpu-operator-1676547773-node-feature-discovery-worker-7jsfj       1/1     Running            4 (98s ago)   6m19s
gpu-operator   gpu-operator-dd7c784bc-6vxfn                                      0/1     CrashLoopBackOff   6 (12s ago)   6m19s
"""
    assert parse_k8s_pods(cut).operator_without_operands() is None
    # With its driver pod listed, the operator's crash says nothing of the GPUs already handed out.
    managed = cut + ("gpu-operator   nvidia-driver-daemonset-xmp2h                                     1/1     Running"
                     "            0             2d22h\nkube-system    coredns-588bb58b94-jrm9d                   "
                     "                       1/1     Running            0             24h\n")
    assert parse_k8s_pods(managed).operator_without_operands() is None
    assert paste_checks(tmp_path, managed, ACCESS)[ACCESS].status not in ("ok", "issue")


def test_kubelets_failed_start_event_is_a_pod_state() -> None:
    # NVIDIA/gpu-feature-discovery#11 (corpus 1749): the runtime refused the device plugin's container.
    from corpus import body
    from stackaudit.importers.k8s_pods import k8s_pod_listing

    lines = body("1749").splitlines()
    (found,) = list(k8s_pod_listing(lines))
    assert (found.start, found.end) == (1, 2)
    (pod,) = parse_k8s_pods(lines[1]).pods
    assert (pod.name, pod.status) == ("nvidia-device-plugin-ctr", "RunContainerError")
    assert pod.device_plugin and pod.failing
    # Modelled: a Failed event of an image pull names no container the runtime refused.
    pull = "  Warning  Failed     3s (x2 over 20s)  kubelet  Error: ErrImagePull"
    assert not list(k8s_pod_listing([pull]))
