"""Readers for the Kubernetes GPU stack's own logs that were refused or half-read (helper h68b).

GKE's own device plugin (container-engine-accelerators, `nvidia-gpu-device-plugin`): its lines are a GPU stack pod's
(facts/container.GKE_PLUGIN_LINE); a MIG partition it discovered, or its metrics' NVML answering for a GPU, shows the
driver reached its container (CTR-GPU-ACCESS ok) and the partition is a MIG instance of its GPU (MEM-MIG, facts/
mig_setup.GKE_PARTITION_LINE); its `Found Nvidia GPU` and kubelet registration alone prove no driver library. The GPU
Operator's toolkit container (logrus lines, facts/container.TOOLKIT_LINE) is read, and judges nothing by itself.
dcgm-exporter's `NVML doesn't exist on this system` and `Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND` are
its container without the driver's NVML (facts/symptoms.py nvml-library-not-loaded). The lines are real, from the
public thread named beside each; modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import gpu_stack_pod
from stackaudit.facts.mig_setup import MigSetup

ACCESS = "CTR-GPU-ACCESS"
MIG = "MEM-MIG"

# https://github.com/GoogleCloudPlatform/container-engine-accelerators/pull/194 (sample log on a MIG-enabled GKE node).
GKE_PARTITIONS = """\
I0323 18:58:29.798138       1 nvidia_gpu.go:67] device-plugin started
I0323 18:58:29.798190       1 nvidia_gpu.go:74] Reading GPU config file: /etc/nvidia/gpu_config.json
I0323 18:58:29.798240       1 nvidia_gpu.go:83] Using gpu config: {1g.5gb}
I0323 18:58:29.798717       1 mig.go:176] Discovered GPU partition: nvidia0/gi10
I0323 18:58:29.798768       1 mig.go:176] Discovered GPU partition: nvidia0/gi11
I0323 18:58:29.798836       1 mig.go:176] Discovered GPU partition: nvidia0/gi12
"""
# https://github.com/NVIDIA/k8s-device-plugin/issues/250 (GKE's plugin on a node of another cluster: it registered
# nvidia0, and the pods the kubelet created had no GPU access).
GKE_DEV_WALK = """\
I0525 19:15:11.354225   31867 nvidia_gpu.go:40] device-plugin started
I0525 19:15:11.454652   31867 manager.go:79] Found Nvidia GPU "nvidia0"
I0525 19:15:11.455034   31867 manager.go:130] will use alpha API
I0525 19:15:11.455073   31867 manager.go:144] starting device-plugin server at: /device-plugin/nvidiaGPU-1621970111.sock
I0525 19:15:11.455469   31867 manager.go:173] device-plugin server started serving
I0525 19:15:11.554611   31867 manager.go:177] falling back to v1beta1 API
I0525 19:15:11.556847   31867 manager.go:185] device-plugin registered with the kubelet
"""
# Modelled on cmd/nvidia_gpu/nvidia_gpu.go's `glog.Fatalf("failed to initialize nvml: %v", ...)`.
GKE_NO_NVML = """\
I0101 00:00:00.000000       1 nvidia_gpu.go:75] device-plugin started
F0101 00:00:05.000000       1 nvidia_gpu.go:106] failed to initialize nvml: ERROR_LIBRARY_NOT_FOUND
"""
# https://github.com/NVIDIA/gpu-operator/issues/415 (nvidia-container-toolkit-daemonset's log).
TOOLKIT_415 = """\
time="2022-10-20T12:36:25Z" level=info msg="Starting nvidia-toolkit"
time="2022-10-20T12:36:25Z" level=info msg="Parsing arguments"
time="2022-10-20T12:36:25Z" level=info msg="Verifying Flags"
time="2022-10-20T12:36:25Z" level=info msg=Initializing
time="2022-10-20T12:36:25Z" level=info msg="Installing toolkit"
time="2022-10-20T12:36:25Z" level=info msg="Installing NVIDIA container toolkit to '/usr/local/nvidia/toolkit'"
time="2022-10-20T12:36:25Z" level=info msg="Removing existing NVIDIA container toolkit installation"
time="2022-10-20T12:36:25Z" level=info msg="Creating directory '/usr/local/nvidia/toolkit'"
"""
# https://github.com/NVIDIA/gpu-operator/issues/448 (the toolkit container's log, a later comment).
TOOLKIT_448 = """\
time="2022-11-30T04:13:15Z" level=info msg="Installed '/usr/local/nvidia/toolkit/nvidia-container-runtime.real'"
time="2022-11-30T04:13:15Z" level=info msg="Installed wrapper '/usr/local/nvidia/toolkit/nvidia-container-runtime'"
time="2022-11-30T04:13:15Z" level=info msg="Finding library libnvidia-ml.so (root=/run/nvidia/driver)"
"""
# https://github.com/NVIDIA/dcgm-exporter/issues/612 (dcgm-exporter 4.8.4's pod without the nvidia runtime class).
EXPORTER_612 = """\
time=2026-09-19T20:06:59.543Z level=INFO msg="Starting dcgm-exporter" Version=4.8.4
time=2026-09-19T20:06:59.547Z level=INFO msg="Attempting to initialize NVML library."
time=2026-09-19T20:06:59.547Z level=ERROR msg="Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND"
"""
# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/166 (quoted from dcgm-exporter's pod; the same words
# are NVIDIA/dcgm-exporter#416's title, corpus 1455, and #530's).
EXPORTER_166 = ("> Not collecting GPU metrics; Error getting devices count: Cannot perform the requested operation "
                "because NVML doesn't exist on this system.\n")


def test_gke_plugin_lines_are_a_gpu_stack_pods() -> None:
    for line in GKE_PARTITIONS.splitlines() + GKE_DEV_WALK.splitlines()[:2]:
        assert gpu_stack_pod(line) == "GKE's NVIDIA GPU device plugin", line
    # klog's head alone is no plugin's line.
    assert gpu_stack_pod("I0323 18:58:29.897831       1 server.go:84] Starting HTTP server") == ""


def test_a_discovered_partition_shows_the_driver_and_a_mig_instance(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, GKE_PARTITIONS, ACCESS, MIG)
    assert results[ACCESS].status == "ok"
    assert "nvidia0/gi10" in results[ACCESS].message
    assert results[MIG].status == "not-an-issue"
    assert results[MIG].coverage is not None and results[MIG].coverage.text() == "1 GPU shown"
    assert MigSetup(tuple(GKE_PARTITIONS.splitlines())).instance_gpus == (0,)


def test_gke_registration_after_a_dev_walk_is_no_proof(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, GKE_DEV_WALK, ACCESS)[ACCESS].status == "unknown"


def test_gke_plugin_without_nvml_is_the_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, GKE_NO_NVML, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "ERROR_LIBRARY_NOT_FOUND" in " ".join(result.evidence)


def test_corpus_1458_gke_mig_node() -> None:
    results = capture_checks("1458", ACCESS, MIG)
    assert results[ACCESS].status == "ok"
    assert results[MIG].status == "not-an-issue"


def test_toolkit_container_logs_are_read_and_judge_nothing(tmp_path: Path) -> None:
    for text in (TOOLKIT_415, TOOLKIT_448):
        assert gpu_stack_pod(text.splitlines()[0]) == "the GPU Operator's toolkit container"
        assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "unknown"
    # Corpus 1442: its setup lines alone (no longer refused).
    assert capture_checks("1442", ACCESS)[ACCESS].status == "unknown"
    # Another program's logrus line is not the toolkit's.
    assert gpu_stack_pod('time="2024-05-02T13:08:53Z" level=info msg="Loading config from /etc/app.toml"') == ""


def test_dcgm_exporter_without_nvml_is_the_issue(tmp_path: Path) -> None:
    for text, quoted in ((EXPORTER_612, "ERROR_LIBRARY_NOT_FOUND"), (EXPORTER_166, "NVML doesn't exist")):
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status == "issue", text
        assert quoted in " ".join(result.evidence)
