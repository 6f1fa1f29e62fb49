"""CTR-GPU-ACCESS: what an ok needs, the container stack's own errors, and a job shown on the host (issue 28).

- A `docker run` of nvidia-smi is a test of GPU access: where the paste shows its output and that output names no GPU
  (cut before its first GPU row, corpus 1527 and 1536), its request is no evidence: unknown, not ok. Where the output
  lists the GPUs (corpus 1264, 1535), or no output is pasted, the request reads as before.
- The hook's detection step failing in the driver service (`detection error: driver error` / `driver rpc error`),
  runc finding no devices cgroup (`mountpoint for devices not found`) and a missing `nvidia-container-runtime-hook`
  prove the issue (facts/symptoms.py).
- A pasted `ps --forest` that shows a Slurm batch script's work as its own children, no container runtime among them,
  is a job on the node: not applicable (corpus 1530).

Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks, symptom_names
from stackaudit.facts.nvidia_smi import lists_a_gpu

ACCESS = "CTR-GPU-ACCESS"


def test_probe_output_cut_before_any_gpu_is_not_ok() -> None:
    # Corpus 1527 (NVIDIA/nvidia-container-runtime#189): the container's nvidia-smi cut at its table header.
    # Corpus 1536 (NVIDIA/nvidia-container-toolkit#47): the run with `device=1,2` cut inside the CUDA banner.
    for prefix in ("1527", "1536"):
        result = capture_checks(prefix, ACCESS)[ACCESS]
        assert result.status == "unknown", (prefix, result.message)
        assert "names no GPU" in result.message


def test_probe_output_that_lists_gpus_stays_ok(tmp_path: Path) -> None:
    # Corpus 1264 and 1535: the container's nvidia-smi lists its GPUs under the run.
    for prefix in ("1264", "1535"):
        assert capture_checks(prefix, ACCESS)[ACCESS].status == "ok", prefix
    # Modelled: corpus 1527 with its container's first GPU row pasted below the header.
    row = "|   0  NVIDIA RTX A4000    Off  | 00000000:B3:00.0 Off |                  Off |\n"
    listed = body("1527").rstrip("\n") + "\n" + row
    assert paste_checks(tmp_path, listed, ACCESS)[ACCESS].status == "ok"
    # Modelled: the run with no output pasted below it (the next command follows) says nothing either way: its request
    # alone shows no GPU inside (issue 28 h121c).
    bare = "$ docker run --rm --gpus all nvidia/cuda:12.4.0-base-ubuntu22.04 nvidia-smi\n$ uname -r\n6.8.0-45-generic\n"
    assert paste_checks(tmp_path, bare, ACCESS)[ACCESS].status == "unknown"


def test_lines_that_name_a_gpu() -> None:
    assert lists_a_gpu("|   0  NVIDIA RTX A4000    Off  | 00000000:65:00.0  On |                  Off |")
    assert lists_a_gpu("|   1  NVIDIA GeForce RTX 3090        On")
    assert lists_a_gpu("GPU 0: Tesla T4 (UUID: GPU-6f3b0c55-2b1e-11ee-be56-0242ac120002)")
    assert lists_a_gpu("GPU 00000000:2D:00.0")
    assert not lists_a_gpu("| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |")
    assert not lists_a_gpu("| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |")
    assert not lists_a_gpu("No devices were found")


def test_hook_and_runtime_errors_are_symptoms() -> None:
    # Modelled on NVIDIA/nvidia-docker#1114 / #1149, nvidia-docker#486 and opencontainers/runc#1631, nvidia-docker#958.
    assert symptom_names("stderr: nvidia-container-cli: detection error: driver error: failed to process request\n") == \
        ["ctk-detection-error"]
    assert symptom_names("nvidia-container-cli: detection error: driver rpc error: failed to process request: unknown.\n") == \
        ["ctk-detection-error"]
    assert symptom_names('container_linux.go:265: starting container process caused "process_linux.go:284: applying cgroup '
                  'configuration for process caused \\"mountpoint for devices not found\\""\n') == \
        ["runc-no-devices-cgroup"]
    assert symptom_names('docker: Error response from daemon: OCI runtime create failed: exec: "nvidia-container-runtime-hook":'
                  ' executable file not found in $PATH: unknown.\n') == ["ctk-hook-missing"]
    assert symptom_names("2019/07/23 14:19:45 ERROR: inject NVIDIA hook: stat /usr/bin/nvidia-container-runtime-hook: no such "
                  "file or directory\n") == ["ctk-hook-missing"]
    # The hook's mode line and a healthy runtime's log name no failure.
    assert symptom_names("Auto-detected mode as 'legacy'\n") == []
    assert symptom_names("2019/07/23 14:19:45 Using bundle file: /var/run/docker/x/config.json\n") == []


def test_runc_without_devices_cgroup_fails_the_gpu_run(tmp_path: Path) -> None:
    # Modelled on NVIDIA/nvidia-docker#486 (corpus 1537 has the line in its title only).
    text = ("$ docker run --rm --gpus all nvidia/cuda:9.0-base nvidia-smi\n"
            "docker: Error response from daemon: OCI runtime create failed: container_linux.go:265: starting container "
            "process caused \"process_linux.go:284: applying cgroup configuration for process caused \\\"mountpoint for "
            "devices not found\\\"\": unknown.\n")
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "devices" in result.message


def test_slurm_batch_job_on_the_node_is_not_in_a_container(tmp_path: Path) -> None:
    # Corpus 1530 (rwth-i6/returnn#1484): python3.11 ranks under slurm_script, no runtime between them.
    result = capture_checks("1530", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    # Modelled: the same job started through Apptainer keeps the container open.
    wrapped = body("1530").replace("   2791  \\_ python3.11", "   2790  \\_ apptainer\n   2791      \\_ python3.11")
    assert "apptainer" in wrapped
    assert paste_checks(tmp_path, wrapped, ACCESS)[ACCESS].status != "not-applicable"
    # Modelled: the tasks srun starts run under slurmstepd, outside the script's tree: not shown on the node.
    launched = body("1530").replace("   2791  \\_ python3.11", "   2791  \\_ srun")
    assert paste_checks(tmp_path, launched, ACCESS)[ACCESS].status != "not-applicable"


def test_rocm_image_given_nvidia_gpus_is_not_the_access(tmp_path: Path) -> None:
    # Corpus 828 (ollama/ollama#7517): `--gpus=all` with `ollama/ollama:0.4.0-rc5-rocm` on an A100.
    result = capture_checks("828", ACCESS)[ACCESS]
    assert result.status == "not-an-issue", result.message
    assert "ROCm" in result.message
    # Modelled: the same run of the CUDA build is judged on its request, which alone shows no GPU inside (h121c).
    cuda = body("828").replace("0.4.0-rc5-rocm", "0.4.0-rc5")
    result = paste_checks(tmp_path, cuda, ACCESS)[ACCESS]
    assert result.status == "unknown" and "request GPUs:" in result.message


def test_nvml_insufficient_permissions_in_started_container_is_issue(tmp_path: Path) -> None:
    # Corpus 2508 (NVIDIA/nvidia-container-toolkit#268): rootless `podman run ... nvidia-smi`, NVML refused the nodes.
    # Corpus 2507 (NVIDIA/nvidia-docker#393): nvidia-docker 1 from a device cgroup that denies 2 of 4 GPUs.
    for prefix in ("2508", "2507"):
        result = capture_checks(prefix, ACCESS)[ACCESS]
        assert result.status == "issue", (prefix, result.message)
        assert "Insufficient Permissions" in " ".join(result.evidence), prefix
    assert "nvml-no-permission" in symptom_names("nvidia-docker | 2017/06/02 17:35:05 Error: nvml: Insufficient "
                                                 "Permissions")
    # Modelled: the same line on a bare host (no container started in the paste) is the device files' mode, not this.
    bare = "$ nvidia-smi\nFailed to initialize NVML: Insufficient Permissions\n"
    assert paste_checks(tmp_path, bare, ACCESS)[ACCESS].status != "issue"
    # Modelled: a non-serving container started with no failing line stays not applicable.
    quiet = "$ docker run --rm ubuntu:22.04 echo hi\nhi\n"
    assert paste_checks(tmp_path, quiet, ACCESS)[ACCESS].status == "not-applicable"


def test_lxc_mount_hook_failure_is_issue(tmp_path: Path) -> None:
    # Corpus 2501 (zabbly/incus#81): nvidia.runtime containers stop at LXC's `Failed to run mount hooks`.
    result = capture_checks("2501", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "mount hook" in result.message
    # A pre-start hook's failure alone (run_buffer's `Script exited with status 1`) may be any of LXD's own hooks.
    assert not symptom_names("lxc cuda 20190126125032.612 ERROR    conf - conf.c:run_buffer:335 - Script exited with "
                             "status 1")
    # Modelled: LXC's other setup failures are no mount hook's.
    assert not symptom_names('lxc ai 20250405020851.656 ERROR    start - start.c:do_start:1268 - Failed to setup '
                             'container "ai"')
