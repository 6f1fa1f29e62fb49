"""GPUs failing inside containers and pods, as the programs there log it (issue 28, step 3).

- CUDA's error 802 in ollama's own words (`cuInit err: 802`, `cuda driver library init failure: 802`) is
  cudaErrorSystemNotReady: DRV-FABRIC-MANAGER issue, and CTR-GPU-ACCESS not-an-issue (the call reached the driver)
  (facts/symptoms.py `cuda-system-not-ready`).
- The device plugin's `NVML not detected: could not load NVML library` (`nvml-library-not-loaded`), a CDI spec naming a
  host device node that is gone (`cdi-host-device-missing`) and the GPU Operator's `nvidia-container-cli.real:
  initialization error` (`ctk-init-error`): CTR-GPU-ACCESS issue, over a GPU request shown beside them.

Real pastes are corpus captures (their public threads in their headers) or verbatim from the thread named beside them;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

FM, ACCESS = "DRV-FABRIC-MANAGER", "CTR-GPU-ACCESS"

# NVIDIA/nvidia-container-toolkit#885 (adi-lb-phoenix): the same stale spec met by `distrobox enter` (its trailing
# space dropped).
DISTROBOX_885 = """\
distrobox enter ubuntu
Error: setting up CDI devices: failed to inject devices: failed to stat CDI host device "/dev/dri/renderD129": no such file or directory
"""


def _names(text: str) -> list[str]:
    return [h.symptom.name for h in find_symptoms(text.splitlines())]


def test_ollama_error_802_is_the_fabric_not_the_container() -> None:
    # Corpus 1003 (H200, ollama/ollama#9031) and 1004 (eight H100, ollama/ollama#12173).
    for prefix in ("1003", "1004"):
        results = capture_checks(prefix, FM, ACCESS)
        assert results[FM].status == "issue", (prefix, results[FM].message)
        assert any("802" in line for line in results[FM].evidence)
        assert results[ACCESS].status == "not-an-issue", (prefix, results[ACCESS].message)


def test_other_cuinit_errors_are_not_802() -> None:
    # Modelled: ollama's probe with CUDA_ERROR_NO_DEVICE (100), and a number that only starts with 802.
    assert _names("cuInit err: 100\n") == []
    assert _names('msg="Unable to load cudart library x: cuda driver library init failure: 8021"\n') == []
    assert _names("cuInit err: 802\n") == ["cuda-system-not-ready"]


def test_every_log_form_of_error_802_is_the_symptom() -> None:
    # Verbatim lines from the threads named (the program's own words for CUDA's 802, cudaErrorSystemNotReady).
    forms = (
        # ollama/ollama#5567 (corpus 1330): ollama's probe line, pasted with a terminal wrap inside `failure`.
        'msg="unable to load cuda driver library" library=/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01 '
        'error="cuda driver library init failur             e: 802"',
        # NVIDIA/nvtrust#87: CUDA's deviceQuery sample (its `-> system not yet initialized` is the next line).
        "cudaGetDeviceCount returned 802",
        # pytorch/pytorch#35710: torch's old THC check.
        "RuntimeError: cuda runtime error (802) : system not yet initialized at /opt/conda/conda-bld/pytorch/THCGeneral.cpp:50",
        # NVIDIA/nccl-tests#264: nccl-tests' own check prints the string only.
        "test: Test CUDA failure common.cu:941 'system not yet initialized'",
        # jax-ml/jax#24866: XLA's cuInit.
        "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet "
        "initialized",
        # wilicc/gpu-burn#133 (corpus 814): gpu_burn's.
        "Couldn't init CUDA: Error (gpu_burn-drv.cpp:304): system not yet initialized",
        # microsoft/lisa#2823: torch's warning from cudaGetDeviceCount.
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
        "before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
    )
    for line in forms:
        assert _names(line + "\n") == ["cuda-system-not-ready"], line
    # Modelled from ollama's gpu_info_cudart.c and NCCL's CUDACHECK: the bare-number forms with 802 alone.
    for line in ("cudaSetDevice err: 802", "Unable to load cudart library x: cudart init failure: 802",
                 "unable to get device count: 802", "unable to get cudart device count: 802",
                 "node1:12:12 [0] init.cc:263 NCCL WARN Cuda failure 802"):
        assert _names(line + "\n") == ["cuda-system-not-ready"], line


def test_a_number_that_only_looks_like_802_is_not_it() -> None:
    # Modelled: other CUDA errors in the same forms, 802 inside a larger number, a table row's column run.
    for line in ("cudaGetDeviceCount returned 100", "cudaSetDevice err: 35", "NCCL WARN Cuda failure 8021",
                 "Memory-Usage 802MiB", "|   0  NVIDIA H100 PCIe               On  | 00000000:01:00.0 Off |",
                 "cuda driver library init failur             e: 803"):
        assert _names(line + "\n") == [], line


def test_ollama_802_wrapped_by_the_terminal_is_the_fabric() -> None:
    # Corpus 1330 (ollama/ollama#5567, an A100 host): the probe's line wrapped inside `failure`; no GPU listing at all.
    result = capture_checks("1330", FM)[FM]
    assert result.status == "issue", result.message
    assert any("e: 802" in line for line in result.evidence)


def test_device_plugin_nvml_not_detected_is_an_access_issue() -> None:
    # Corpus 1001 (NVIDIA/k8s-device-plugin#1371): the plugin's pod cannot load libnvidia-ml.so.1.
    result = capture_checks("1001", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "NVML not detected" in result.evidence[0]


def test_device_plugin_finding_nvml_proves_nothing() -> None:
    # Modelled: the plugin's own line where it found NVML (a healthy start).
    assert _names("I0819 07:02:54.757556       1 factory.go:104] Detected NVML platform: found NVML library\n") == []


def test_a_stale_cdi_spec_beats_the_gpu_request(tmp_path: Path) -> None:
    # Corpus 1000: `podman run --device nvidia.com/gpu=all` asks for the GPUs, and the spec's render node is gone.
    result = capture_checks("1000", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "renderD129" in result.evidence[0]
    line = paste_checks(tmp_path, DISTROBOX_885, ACCESS)[ACCESS]
    assert line.status == "issue", line.message


def test_cdi_host_devices_injected_prove_nothing() -> None:
    # Modelled: the toolkit's debug line naming a host device it injects.
    assert _names('level=debug msg="Injecting CDI host device /dev/dri/renderD128"\n') == []


def test_operator_toolkit_validation_hook_failure_is_an_access_issue() -> None:
    # Corpus 1010 (NVIDIA/gpu-operator#1518): the validator's container does not start, the hook cannot reach NVML.
    result = capture_checks("1010", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "nvidia-container-cli.real" in result.evidence[0]


# Modelled: the `gpus:` key's list form, one GPU by its index, and a service without any GPU request.
MODELLED_COMPOSE_GPU_LIST = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: --model Qwen/Qwen3-8B
    gpus:
      - device_ids: ["1"]
  web:
    image: vllm/vllm-openai:v0.11.0
    command: --model Qwen/Qwen3-8B
"""


def test_compose_gpus_key_is_a_gpu_request() -> None:
    # Corpus 1006 (vllm-project/vllm#28132): `gpus: "all"` hands the service every GPU.
    result = capture_checks("1006", ACCESS)[ACCESS]
    # Read as a request; alone it shows no GPU inside (unknown, issue 28 h121c).
    assert result.status == "unknown", result.message
    assert "smollm-3b (all)" in result.message


def test_compose_gpus_list_names_its_devices_and_a_service_without_it_asks_none() -> None:
    from stackaudit.facts.container_specs import parse_compose

    vllm, web = parse_compose(MODELLED_COMPOSE_GPU_LIST)
    assert vllm.gpu_requested and vllm.gpu_count == 1
    assert not web.gpu_requested


# Modelled: ollama's probe finding no GPU where the user says it runs on the host, and where nothing says where.
MODELLED_OLLAMA_NATIVE = """\
I run ollama natively instead of in docker now, and it still says:
time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"
"""
MODELLED_OLLAMA_UNPLACED = """\
time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"
"""


def test_ollama_finding_no_gpu_in_the_container_the_user_names_is_an_access_issue() -> None:
    # Corpus 1002 (`Ollama container logs`, ClaraVerse#49) and 1009 (`I deployed ollama with docker`, ollama#6840).
    for prefix, said in (("1002", "no compatible GPUs were discovered"), ("1009", "no nvidia devices detected")):
        result = capture_checks(prefix, ACCESS)[ACCESS]
        assert result.status == "issue", (prefix, result.message)
        assert said in result.evidence[0]


def test_ollama_finding_no_gpu_outside_a_container_is_not_the_container(tmp_path: Path) -> None:
    for text in (MODELLED_OLLAMA_NATIVE, MODELLED_OLLAMA_UNPLACED):
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status != "issue", result.message


# Modelled: nvidia-smi's two lines of a version mismatch where nothing says a container (a host whose driver was updated
# without a reboot), and where the user says the output came from inside one.
MODELLED_MISMATCH_HOST = """\
After the upgrade nvidia-smi stopped working on the server:
Failed to initialize NVML: Driver/library version mismatch
NVML library version: 570.86
"""
MODELLED_MISMATCH_UNDONE = """\
This is not in the container but on the bare host, where nvidia-smi says:
Failed to initialize NVML: Driver/library version mismatch
NVML library version: 570.86
"""


def test_nvml_version_mismatch_in_a_container_is_an_access_issue() -> None:
    # Corpus 1008 (k4yt3x/video2x#1226): the image's NVML 565.57 on a 535 host, read as nvidia-smi's output.
    result = capture_checks("1008", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "Driver/library version mismatch" in result.evidence[0]
    assert "image without driver libraries" in result.message


def test_nvml_version_mismatch_on_a_host_is_not_the_container(tmp_path: Path) -> None:
    for text in (MODELLED_MISMATCH_HOST, MODELLED_MISMATCH_UNDONE):
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status != "issue", result.message


def test_the_users_words_that_put_ollama_in_docker() -> None:
    from stackaudit.facts.container import stated_container

    # Verbatim sentences: ollama/ollama#5453 (sieu-anika), #8674 (mikedolx), #6840 (deardeer7).
    for line in ("I have a same isssue, I run ollama with docker by command: ",
                 "i'm currently trying to setup ollama within docker. I am using the following `docker-compose.yml`:",
                 "I deployed ollama with docker on a debian12 machine, but it can't use the GPU"):
        assert stated_container(line)[0] == "docker", line
    # ollama/ollama#8179 (IrfDev): a Kubernetes workload runs in a pod's containers; modelled: the same in other words.
    for line in ("I've successfully setup an OLLAMA server running in a K8s implementation with the official NVIDIA "
                 "drivers and cuda toolkit. ", "our vllm deployment runs on kubernetes"):
        assert stated_container(line)[0] == "kubernetes", line
    assert stated_container("ollama runs on my laptop, k8s is for the other services") == ("", "")
    # ollama/ollama#6364 (fahadshery): the host install, undone by `without`; modelled: a native install.
    for line in ("I installed ollama without docker and it was able to utilise my gpu without any issues.",
                 "I run ollama natively, not in the container, and it finds the GPU"):
        assert stated_container(line) == ("", ""), line


# --- NVML missing where CUDA works (corpus 1024) -------------------------------------------------------------------


def test_nvml_failing_while_cuda_works_is_the_hand_over_1024() -> None:
    # corpus 1024 (vllm-project/vllm#9587): `UserWarning: Can't initialize NVML`, then `Is CUDA available: True`.
    r = capture_checks("1024", ACCESS)[ACCESS]
    assert r.status == "issue" and "utility" in r.message
    # The source does not show the container: the finding says so, at field-report confidence.
    assert r.confidence == "field-reports" and "does not show the container" in r.message


def test_modelled_nvml_failing_with_cuda_failing_too_is_another_fault(tmp_path: Path) -> None:
    from corpus import body

    # Modelled: 1024's report with CUDA unavailable as well: a driver or device fault, not a missing NVML alone.
    text = body("1024").replace("Is CUDA available: True", "Is CUDA available: False")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status != "issue"


def test_ngc_banner_error_802_is_the_fabric() -> None:
    # Corpus 1304 (NVIDIA/TensorRT-LLM#398, a p4d.24xlarge): the NGC container's start-up check prints CUDA's error
    # string capitalised, `[[ System not yet initialized (error 802) ]]`, under a cut nvidia-smi that lists no GPU.
    assert _names("   [[ System not yet initialized (error 802) ]]\n") == ["cuda-system-not-ready"]
    results = capture_checks("1304", FM)
    assert results[FM].status == "issue", results[FM].message
    assert any("System not yet initialized" in line for line in results[FM].evidence)


# --- the hook in CSV mode refusing Docker's --gpus (h103a) ---

def test_csv_mode_hook_refusing_gpus_flag_is_access() -> None:
    # triton-inference-server/server#5641 (corpus 2338): a Jetson Orin's hook in CSV mode refuses `--gpus`, although
    # the command asks for a GPU (`--gpus="device=0"`): the container never starts.
    r = capture_checks("2338", ACCESS)[ACCESS]
    assert r.status == "issue"
    assert any("Runtime Hook directly" in line for line in r.evidence)
    assert r.fix is not None and "--runtime nvidia" in str(r.fix)


def test_hook_mode_line_alone_is_no_refusal(tmp_path: Path) -> None:
    # Modelled: the hook's mode line and a sentence about the flag, without the hook's refusal, prove nothing.
    lines = ["stderr: Auto-detected mode as 'csv'",
             "invoking the NVIDIA Container Runtime Hook directly is what --gpus does on a dGPU host"]
    assert "ctk-hook-direct-refused" not in _names("\n".join(lines))
    assert "ctk-hook-direct-refused" in _names("invoking the NVIDIA Container Runtime Hook directly (e.g. specifying "
                                               "the docker --gpus flag) is not supported.")
    import time
    start = time.perf_counter()
    _names("invoking the NVIDIA Container Runtime Hook directly " + "is not " * 30_000)
    assert time.perf_counter() - start < 1.0
