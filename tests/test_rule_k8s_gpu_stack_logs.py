"""The Kubernetes GPU stack's own logs as evidence: the device plugin, the GPU Operator's validators.

The device plugin and the validators run only as pods, so their own lines show a container
(facts/container.gpu_stack_pod); the plugin's `XidCriticalError` is an Xid event on the GPU its UUID names
(facts/gpu_events.py); `Detected non-NVML platform` is the plugin failing to load NVML; CUDA's `no CUDA-capable device
is detected` in a container is the runtime not handing it the GPU; a compat refusal (804) or `busy or unavailable`
(46) shows the device reached the program (CTR-GPU-ACCESS not-an-issue); a time-slicing config with replicas > 1
shares each GPU (MEM-GPU-SHARED). The lines are real, from the public thread named beside each; modelled ones are said
so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import gpu_stack_pod
from stackaudit.facts.gpu_events import parse_plugin_xids, stated_xids
from stackaudit.facts.time_slicing import parse_time_slicing, section_end

ACCESS = "CTR-GPU-ACCESS"
SHARED = "MEM-GPU-SHARED"

# NVIDIA/k8s-device-plugin#189 (corpus 1200).
PLUGIN_XID = """\
2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.
2020/08/10 19:09:42 'nvidia.com/gpu' device marked unhealthy: GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8
"""
# NVIDIA/k8s-device-plugin#479 (corpus 1196), the discovery lines.
PLUGIN_NO_NVML = """\
I0121 20:28:50.871307       1 main.go:256] Retreiving plugins.
W0121 20:28:50.871782       1 factory.go:31] No valid resources detected, creating a null CDI handler
I0121 20:28:50.871846       1 factory.go:107] Detected non-NVML platform: could not load NVML library: libnvidia-ml.so.1: cannot open shared object file: No such file or directory
"""
# NVIDIA/gpu-operator#1900 (corpus 1172), the validator's log as k9s prints it.
VALIDATOR_NO_DEVICE = """\
cuda-validation Failed to allocate device vector A (error code no CUDA-capable device is detected)!

stream closed EOF for gpu-operator/nvidia-cuda-validator-r6nsb (cuda-validation)
"""
# The same CUDA failure as the vectorAdd sample prints it on a host (modelled): no pod shown, so not this check's.
HOST_NO_DEVICE = "Failed to allocate device vector A (error code no CUDA-capable device is detected)!\n"


def test_the_plugins_and_validators_own_lines_show_a_pod() -> None:
    assert gpu_stack_pod(PLUGIN_XID.splitlines()[0]) == "the NVIDIA device plugin"
    assert gpu_stack_pod(PLUGIN_NO_NVML.splitlines()[1]) == "the NVIDIA device plugin"
    assert gpu_stack_pod(VALIDATOR_NO_DEVICE.splitlines()[0]) == "the GPU Operator's validator"
    assert gpu_stack_pod(VALIDATOR_NO_DEVICE.splitlines()[2]) == "the GPU Operator's validator"
    assert gpu_stack_pod(HOST_NO_DEVICE) == ""
    # A Go program's log time alone is no device plugin.
    assert gpu_stack_pod("2020/08/10 19:09:42 Starting server on :8080") == ""


def test_the_plugins_xid_event_is_an_xid_on_the_gpu_its_uuid_names(tmp_path: Path) -> None:
    (event,) = parse_plugin_xids(PLUGIN_XID.splitlines())
    assert (event.code, event.bdf) == (69, "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8")
    result = paste_checks(tmp_path, PLUGIN_XID, "DRV-XID")["DRV-XID"]
    assert result.status == "issue"
    assert "GPU-7540a9b3" in result.message


def test_the_plugins_non_nvml_platform_is_a_container_without_nvml(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, PLUGIN_NO_NVML, ACCESS)[ACCESS]
    assert result.status == "issue"
    assert "could not load NVML" in result.message


def test_no_cuda_device_in_a_validator_pod_is_the_runtime_not_handing_the_gpu(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, VALIDATOR_NO_DEVICE, ACCESS)[ACCESS].status == "issue"
    # On a host the same words are a driver not loaded: no container is shown, so not this check's issue.
    assert paste_checks(tmp_path, HOST_NO_DEVICE, ACCESS)[ACCESS].status != "issue"


def test_a_cuda_refusal_after_reaching_the_gpu_rules_out_access() -> None:
    # NVIDIA/gpu-operator#277: the validator's vectorAdd refused for forward compatibility (804).
    assert capture_checks("1173", ACCESS)[ACCESS].status == "not-an-issue"
    # NVIDIA/gpu-operator#129: busy or unavailable (46) under MIG.
    assert capture_checks("1145", ACCESS)[ACCESS].status == "not-an-issue"


# Modelled on faster-whisper's 804 (corpus 2463) inside a container the source shows by its prompt.
COMPAT_804_IN_CONTAINER = """\
root@802f556c99c8:/app# python transcribe.py
RuntimeError: CUDA failed with error forward compatibility was attempted on non supported HW
"""


def test_a_compat_refusal_rules_out_access_only_in_a_container_shown(tmp_path: Path) -> None:
    # SYSTRAN/faster-whisper (corpus 2463): the 804 on a GeForce with no container shown; whether the compat library
    # is an image's is not shown, so the check stays open (both readers), not ruled out.
    result = capture_checks("2463", ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    # The same line typed in a container the prompt shows rules the check out, as in the validator's pod (1173).
    result = paste_checks(tmp_path, COMPAT_804_IN_CONTAINER, ACCESS)[ACCESS]
    assert result.status == "not-an-issue", result.message
    assert "forward compatibility" in result.message


# NVIDIA/gpu-operator#1900 (corpus 1172): the Helm values' time-slicing config.
TIME_SLICED = """\
          time-slicing: |-
            version: v1
            sharing:
              timeSlicing:
                renameByDefault: false
                failRequestsGreaterThanOne: true
                resources:
                  - name: nvidia.com/gpu
                    replicas: 4
"""
# The plugin's config dump with an empty section (corpus 1196): nothing shared.
DUMP_EMPTY = """\
  "sharing": {
    "timeSlicing": {}
  }
"""


def test_a_time_slicing_config_with_replicas_shares_each_gpu(tmp_path: Path) -> None:
    lines = TIME_SLICED.splitlines()
    assert section_end(lines, 3) == len(lines)
    assert parse_time_slicing(TIME_SLICED).shared == (("nvidia.com/gpu", 4),)
    result = paste_checks(tmp_path, TIME_SLICED, SHARED)[SHARED]
    assert result.status == "issue"
    assert "replicas: 4" in result.evidence
    assert section_end(DUMP_EMPTY.splitlines(), 1) == 0


def test_a_deployments_replicas_is_no_time_slicing() -> None:
    # Modelled: a Deployment's `replicas: 2` is pods, not GPU shares.
    deployment = "spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: vllm\n"
    assert not any(section_end(deployment.splitlines(), i) for i in range(len(deployment.splitlines())))


def test_the_corpus_shapes_hold() -> None:
    assert capture_checks("1200", "DRV-XID")["DRV-XID"].status == "issue"
    assert capture_checks("1196", ACCESS)[ACCESS].status == "issue"
    results = capture_checks("1172", ACCESS, SHARED)
    assert (results[ACCESS].status, results[SHARED].status) == ("issue", "issue")


def test_an_xid_the_user_quotes_with_its_meaning_is_an_event() -> None:
    # Issue 28 (h106d): corpus 2422, `Xid 79 ("GPU has fallen off the bus") followed immediately by Xid 154 ("Node
    # Reboot Required")` in the issue body: the GPU was lost (DRV-XID issue), read beside the device plugin's Xids.
    r = capture_checks("2422", "DRV-XID")["DRV-XID"]
    assert r.status == "issue" and "Xid 79" in r.message, r.message
    assert [e.code for e in stated_xids('crashed with Xid 79 ("GPU has fallen off the bus") then Xid 154 '
                                        '("Node Reboot Required")')] == [79, 154]


def test_an_xid_number_mentioned_in_prose_is_no_event(tmp_path: Path) -> None:
    # Modelled on a corpus thread's words: a number without its quoted meaning is a mention, not an event.
    line = "Xid 109 does not even exist in nvidia's documentation, and I never saw Xid 79 here"
    assert stated_xids(line) == ()
    header = "NVIDIA-SMI 595.71.05   Driver Version: 595.71.05   CUDA Version: 13.2\n"
    r = paste_checks(tmp_path, header + line + "\n", "DRV-XID")["DRV-XID"]
    assert r.status != "issue", r.message
