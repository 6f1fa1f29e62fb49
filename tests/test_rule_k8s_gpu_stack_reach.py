"""What the Kubernetes GPU stack's own logs say of the GPUs (blind batch YD).

The device plugin's `Detected NVML platform: found NVML library` or its kubelet registration shows NVML reached the GPUs
from its pod (CTR-GPU-ACCESS ok, facts/container.PLUGIN_REACHED); nvidia-smi's `Unable to determine the device handle`
inside a GPU stack pod is NVML unable to open the GPU there (issue); k9s's log view pads klog records onto one line,
read once unpadded (importers/_paste.unpad_records); the plugin's NVML resource managers failing on an `invalid MIG
configuration` is MEM-MIG's issue; nvidia-smi's `CUDA Version: N/A` is no libcuda at all (DRV-CUDA-COMPAT issue). The
lines are real, from the public thread named beside each; modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import gpu_stack_pod
from stackaudit.importers._paste import unpad_records, view

ACCESS = "CTR-GPU-ACCESS"

# NVIDIA/gpu-operator#139 (corpus 1290), the device plugin's log.
PLUGIN_REGISTERED = """\
2021/01/28 11:24:35 Loading NVML
2021/01/28 11:24:35 Starting FS watcher.
2021/01/28 11:24:35 Starting OS watcher.
2021/01/28 11:24:35 Retreiving plugins.
2021/01/28 11:24:35 Starting GRPC server for 'nvidia.com/gpu'
2021/01/28 11:24:35 Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock
2021/01/28 11:24:35 Registered device plugin for 'nvidia.com/gpu' with Kubelet
2021/01/28 14:28:41 Received signal "terminated", shutting down.
"""
# The same start, then the plugin marking a GPU unhealthy (modelled, lines of NVIDIA/k8s-device-plugin#189).
PLUGIN_UNHEALTHY = PLUGIN_REGISTERED + """\
2020/08/10 19:09:42 'nvidia.com/gpu' device marked unhealthy: GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8
"""
# NVIDIA/gpu-operator#133 (corpus 1295), the toolkit pod's driver-validation container.
VALIDATOR_NO_HANDLE = """\
waiting for nvidia drivers to be loaded
sh: nvidia-smi: command not found
waiting for nvidia drivers to be loaded
Unable to determine the device handle for GPU 0000:03:00.0: Unknown Error
"""
# NVIDIA/k8s-device-plugin#397 (corpus 1289), as k9s's log view runs the records together (padding shortened).
K9S_PADDED = (" " * 30 + "I0401 23:26:45.144253       1 factory.go:107] Detected NVML platform: found NVML library"
              + " " * 40 + "E0401 23:26:48.266274       1 main.go:123] error starting plugins: error getting plugins: "
              "failed to construct NVML resource managers: error building device map: error building device map from "
              "config.resources: invalid MIG configuration: error visiting devices: error\n")


def test_the_plugins_nvml_platform_line_is_its_own() -> None:
    line = "I0401 23:26:45.144253       1 factory.go:107] Detected NVML platform: found NVML library"
    assert gpu_stack_pod(line) == "the NVIDIA device plugin"
    assert gpu_stack_pod("waiting for nvidia drivers to be loaded") == "the GPU Operator's validator"
    assert gpu_stack_pod("waiting for the network to come up") == ""


def test_the_plugins_registration_shows_it_reached_the_gpus(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, PLUGIN_REGISTERED, ACCESS)[ACCESS]
    assert result.status == "ok"
    assert "Registered device plugin" in result.message
    # A device it marks unhealthy is no such proof.
    assert paste_checks(tmp_path, PLUGIN_UNHEALTHY, ACCESS)[ACCESS].status != "ok"


def test_a_lost_device_handle_in_a_validator_pod_is_no_access(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VALIDATOR_NO_HANDLE, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "0000:03:00.0" in result.message
    # On a host (no pod shown) the same nvidia-smi line is a GPU lost, not a container's access.
    assert paste_checks(tmp_path, VALIDATOR_NO_HANDLE.splitlines()[-1] + "\n", ACCESS)[ACCESS].status != "issue"


def test_k9s_padded_records_read_once_unpadded(tmp_path: Path) -> None:
    records = unpad_records(K9S_PADDED.rstrip("\n"))
    assert records is not None and len(records) == 2
    assert records[0].startswith("I0401 23:26:45.144253") and records[1].startswith("E0401 23:26:48.266274")
    assert view(K9S_PADDED).lines[:2] == records
    # A record on its own line keeps it.
    assert unpad_records("I0401 23:26:45.144253       1 factory.go:107] Detected NVML platform") is None
    # Modelled hostile line: blanks without a record after them are looked at once (a pattern that matched the blanks
    # first took minutes on 200,000 of them).
    assert unpad_records("main.go:1] " + " " * 200_000 + "x") is None
    padded = " " * 100_000 + K9S_PADDED.rstrip("\n")
    assert unpad_records(padded) == records
    results = paste_checks(tmp_path, K9S_PADDED, ACCESS, "MEM-MIG")
    assert results["MEM-MIG"].status == "issue"
    assert results[ACCESS].status == "ok"


def test_cuda_version_na_is_no_cuda_at_all() -> None:
    result = capture_checks("1293", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue"
    assert "N/A" in result.message


def test_the_corpus_shapes_hold() -> None:
    assert capture_checks("1289", ACCESS, "MEM-MIG")["MEM-MIG"].status == "issue"
    assert capture_checks("1290", ACCESS)[ACCESS].status == "ok"
    assert capture_checks("1295", ACCESS)[ACCESS].status == "issue"


def test_the_beta_plugins_registration_beside_a_node_description(tmp_path: Path) -> None:
    # Corpus 2064 (NVIDIA/gpu-operator#24): the 1.0.0-beta plugin's `Registered device plugin with Kubelet` (Go's log
    # time, no resource name) beside a cut `kubectl describe no`: the plugin reached NVML, so the node offers its GPUs.
    result = capture_checks("2064", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok", result.message
    assert "Registered device plugin with Kubelet" in result.message
    assert gpu_stack_pod("2020/01/10 15:01:53 Registered device plugin with Kubelet")
    # Modelled: the beta's NVML failure, with no registration after it, proves nothing reached.
    failed = ("kubectl describe no gpu-node\nName:               gpu-node\nRoles:              <none>\n"
              "2020/01/10 15:01:53 Loading NVML\n"
              "2020/01/10 15:01:53 Failed to initialize NVML: could not load NVML library.\n")
    assert paste_checks(tmp_path, failed, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"
