"""GPU access failures of Kubernetes GPU nodes and containers that were read as unknown or refused (helper h70e).

- The kubelet's UnexpectedAdmissionError from the NVIDIA device plugin (`Allocate failed due to device plugin
  GetPreferredAllocation rpc failed ... nvml ...`): the pod is refused its GPUs (facts/symptoms.py
  k8s-gpu-admission-failed).
- GKE's driver installer, its device plugin pod's init container, ending in `Waiting for GPU driver libraries to be
  available.` after `GPU driver auto installation is disabled.`: no driver on the node, no nvidia.com/gpu
  (facts/container.GKE_INSTALLER_LINE, ContainerInfo.driver_wait).
- A device plugin service whose journal holds no entry (`journalctl -b -u nvidia-k8s-device-plugin`, then
  `-- No entries --`, Bottlerocket): it never ran (importers/shown_commands.py, device-plugin-unit-never-ran).
- torch's `UserWarning: Can't initialize NVML` in a container the source shows: an issue there; on a bare host the
  same warning is not the container's (torch-nvml-in-container, within=IN_CONTAINER).

The lines are real, from the public thread named beside each; modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.container import gpu_stack_pod
from stackaudit.facts.shown_commands import empty_unit_journal
from stackaudit.facts.symptoms import find_symptoms

ACCESS = "CTR-GPU-ACCESS"
END_OF_HEADER = "# ----- end of header;"

# https://github.com/NVIDIA/k8s-device-plugin/issues/1397 (the pod's event, device plugin 0.17.3 on EKS).
ADMISSION_1397 = ("Warning  UnexpectedAdmissionError  28m   kubelet                  Allocate failed due to device "
                  "plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = error getting "
                  "list of preferred allocation devices: unable to get device link information: error calling "
                  "nvml.Init: Unknown Error, which is unexpected\n")
# https://github.com/NVIDIA/k8s-device-plugin/issues/1223 (AKS, device plugin 0.17.1, the event as the user quoted it).
ADMISSION_1223 = ("`Pod was rejected: Allocate failed due to device plugin GetPreferredAllocation; unable to get "
                  "device link information: error calling nvml.Init`\n")
# https://github.com/kubernetes/kubernetes/issues/97131 (`kubectl describe pod`'s message: a lost GPU).
ADMISSION_97131 = """\
`Message:        Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 5: nvml: GPU is lost, which is unexpected
`

bash$ kubectl get pods
NAME          READY   STATUS                     RESTARTS   AGE
rojin-2q6ld   0/1     UnexpectedAdmissionError   0          4s
"""
# https://github.com/kubernetes/kubernetes/issues/130145 (the kubelet still counting devices of deleted pods).
ADMISSION_130145 = """\
Status:              Failed
Reason:            UnexpectedAdmissionError
Message:         Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested:1, Available: 0, which is unexpected
"""
# https://github.com/trueforge-org/truecharts/issues/19201 (AMD's device plugin on TrueNAS).
ADMISSION_AMD_19201 = ("Allocate failed due to no healthy devices present; cannot allocate unhealthy devices "
                       "amd.com/gpu, which is unexpected\n")
# https://github.com/GoogleCloudPlatform/container-engine-accelerators/issues/402 (a T4 node of Node
# Auto-Provisioning: the nvidia-driver-installer init container's log).
INSTALLER_402 = """\
  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current
                                 Dload  Upload   Total   Spent    Left  Speed
   0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0 100   720  100   720    0     0   113k      0 --:--:-- --:--:-- --:--:--  117k
GPU driver auto installation is disabled.
Waiting for GPU driver libraries to be available.
"""
# https://github.com/PromtEngineer/localGPT/issues/632 (a virtual environment on an Ubuntu 20.04 host: no container).
HOST_NVML_632 = """\
/home/21zz42/L-factor/app/localGPT/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py:611: UserWarning: Can't initialize NVML
  warnings.warn("Can't initialize NVML")
"""


def test_kubelet_admission_failures_are_the_issue(tmp_path: Path) -> None:
    for text in (ADMISSION_1397, ADMISSION_1223, ADMISSION_97131, ADMISSION_130145):
        assert [h.symptom.name for h in find_symptoms([text.strip()])] == ["k8s-gpu-admission-failed"]
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status == "issue", text
        assert "Allocate failed due to" in " ".join(result.evidence)


def test_another_vendors_admission_failure_is_not_read(tmp_path: Path) -> None:
    # AMD's device plugin names its own resource, no NVML: no NVIDIA GPU access failure.
    assert find_symptoms([ADMISSION_AMD_19201.strip()]) == ()


def test_corpus_1583_admission_failure_on_gsp_node() -> None:
    assert capture_checks("1583", ACCESS)[ACCESS].status == "issue"


def test_gke_installer_waiting_for_a_driver_is_the_issue(tmp_path: Path) -> None:
    assert gpu_stack_pod("GPU driver auto installation is disabled.") == "GKE's NVIDIA driver installer"
    result = paste_checks(tmp_path, INSTALLER_402, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "Waiting for GPU driver libraries" in " ".join(result.evidence)


def test_gke_installer_then_the_plugin_reaching_nvml_is_no_issue(tmp_path: Path) -> None:
    # Modelled: the installer's wait, then GKE's plugin answering through NVML (its metrics' line, as in
    # container-engine-accelerators#194): the driver came, the wait was a step.
    text = INSTALLER_402 + ("I0101 00:01:00.000000       1 metrics.go:144] nvml initialized successfully. Driver "
                            "version: 535.183.01\n")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "ok"


def test_corpus_1585_gke_node_without_driver() -> None:
    result = capture_checks("1585", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "Init:0/2" in " ".join(result.evidence)


def test_empty_device_plugin_journal_is_the_issue(tmp_path: Path) -> None:
    assert empty_unit_journal("journalctl -u nvidia-k8s-device-plugin.service", "-- No entries --") \
        == "nvidia-k8s-device-plugin.service"
    # Another boot's journal and a journal with lines say nothing of this boot.
    assert empty_unit_journal("journalctl -b -1 -u nvidia-k8s-device-plugin", "-- No entries --") is None
    assert empty_unit_journal("journalctl -b -u nvidia-k8s-device-plugin", "Jul 09 22:06:05 node systemd[1]: "
                              "Started nvidia-k8s-device-plugin.service.") is None
    # Modelled on corpus 1586: the previous boot's empty journal proves nothing of the plugin now.
    body = next(CAPTURES_DIR.glob("1586-*.txt")).read_text().split(END_OF_HEADER, 1)[1].split("\n", 1)[1]
    this_boot = "journalctl -b -u nvidia-k8s-device-plugin"
    assert this_boot in body
    earlier = body.replace(this_boot, "journalctl -b -1 -u nvidia-k8s-device-plugin")
    assert paste_checks(tmp_path, earlier, ACCESS)[ACCESS].status != "issue"


def test_corpus_1586_bottlerocket_plugin_never_ran() -> None:
    result = capture_checks("1586", ACCESS, "DRV-FABRIC-MANAGER")
    assert result[ACCESS].status == "issue"
    assert "nvidia-k8s-device-plugin: -- No entries --" in " ".join(result[ACCESS].evidence)
    # The fabric manager unit's empty journal stays that check's (a single T4: not applicable).
    assert result["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_torch_nvml_warning_in_a_container_is_the_issue() -> None:
    result = capture_checks("1567", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "Can't initialize NVML" in " ".join(result.evidence)


def test_torch_nvml_warning_on_a_host_is_not_the_containers(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, HOST_NVML_632, ACCESS)[ACCESS].status != "issue"
    # Corpus 1024: a collect_env with CUDA available stays read by its own rule (NVML without CUDA's peer).
    assert capture_checks("1024", ACCESS)[ACCESS].status == "issue"


def test_torch_nvml_warning_in_a_collect_env_run_in_a_container_is_the_issue(tmp_path: Path) -> None:
    """Corpus 2212 (vllm-project/vllm#5370, both readers: issue): collect_env run by `docker exec` in the vllm-openai
    container warns `Can't initialize NVML`, and the report is cut before its CUDA lines: in the container the warning
    alone is the issue. Modelled: the same report run on the host (no `docker exec`) says nothing of a container."""
    result = capture_checks("2212", ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "Can't initialize NVML" in " ".join(result.evidence)
    text = CAPTURES_DIR.joinpath(next(p.name for p in CAPTURES_DIR.glob("2212-*.txt"))).read_text()
    capture = text.split(END_OF_HEADER, 1)[1].split("\n", 1)[1]
    host = capture.replace("docker exec -it vllm-openai sh -c '/usr/bin/python3 /vllm-workspace/collect_env.py'",
                           "python3 collect_env.py")
    assert "docker" not in host
    assert paste_checks(tmp_path, host, ACCESS)[ACCESS].status != "issue"
