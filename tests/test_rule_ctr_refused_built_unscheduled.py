"""Container checks over four shapes the blind batches AQ and AR showed (corpus 1828, 1832, 1837, 1845).

- CTR-GPU-ACCESS: CUDA refused to start for the driver's age (cudaErrorInsufficientDriver, 35) where the image's own
  start-up check found the driver inside the container (a Jetson's `NVIDIA Tegra driver detected.`): the driver
  reached the container; the image's CUDA is the fault (DRV-CUDA-COMPAT). The refusal alone decides nothing: cudart
  returns the same 35 where no driver library reached it (`The NVIDIA Driver was not detected`).
- facts/container.py: an engine run by a relative path (`./main`) that the user says they compiled, or that a build
  typed at a shell prompt naming no container precedes, runs on the host: no container check applies.
- CTR-K8S-GPU-TOPOLOGY: a pod its status shows not scheduled holds no GPU: not applicable.
- CTR-SECCOMP-NUMA: a cut pod spec whose container only waits (`sleep 100000`) starts no NCCL peers: not an issue.
- CTR-SHM-SIZE: a program the source shows run on the host is not applicable, one process or several.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

GPU = "CTR-GPU-ACCESS"

# Modelled on triton-inference-server/server#6373 (corpus 1828) with the NGC banner finding no driver in place of the
# Tegra line: the same 35 refusal, now the no-driver case the banner proves (ngc-driver-not-detected).
NO_DRIVER_35 = """\
nvidia@ubuntu:~$ docker run --rm -v ${PWD}/model_repository:/models nvcr.io/nvidia/tritonserver:23.08-py3 tritonserver --model-repository=/models

=============================
== Triton Inference Server ==
=============================

NVIDIA Release 23.08 (build 66821655)

WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use the NVIDIA Container Toolkit to start this container with GPU support; see

Unable to allocate pinned system memory, pinned memory pool will not be available: CUDA driver version is insufficient for CUDA runtime version
"""

# Modelled (corpus 1828 without its banner): a GPU request and the 35 refusal, nothing from inside the container.
REQUEST_35_ONLY = """\
nvidia@ubuntu:~$ docker run --runtime nvidia --gpus all --rm nvcr.io/nvidia/tritonserver:23.08-py3 tritonserver --model-repository=/models
Unable to allocate pinned system memory, pinned memory pool will not be available: CUDA driver version is insufficient for CUDA runtime version
"""


def test_refusal_with_the_driver_found_inside_is_not_access() -> None:
    # Real: triton-inference-server/server#6373 (corpus 1828): --runtime nvidia --gpus all, status 35, Tegra driver.
    got = capture_checks("1828", GPU)[GPU]
    assert got.status == "not-an-issue"
    assert "NVIDIA Tegra driver detected" in got.message and "DRV-CUDA-COMPAT" in got.message


def test_ngc_version_check_keeps_its_reading() -> None:
    # Real: NVIDIA/TensorRT-LLM#23 (corpus 1189) not an issue; triton 20.06 with NVML finding GPUs (corpus 1767) ok.
    assert capture_checks("1189", GPU)[GPU].status == "not-an-issue"
    assert capture_checks("1767", GPU)[GPU].status == "ok"


def test_refusal_where_the_banner_found_no_driver_stays_an_issue(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, NO_DRIVER_35, GPU)[GPU]
    assert got.status == "issue"


def test_refusal_alone_is_not_cleared(tmp_path: Path) -> None:
    # Nothing shows the driver inside: the request is read as it was before (alone no GPU inside: unknown, issue 28
    # h121c), not cleared.
    got = paste_checks(tmp_path, REQUEST_35_ONLY, GPU)[GPU]
    assert got.status == "unknown" and "request GPUs:" in got.message


# Real: ggml-org/llama.cpp#6184 (corpus 1832): the user's words, the build and the run, each as posted.
STATED_BUILD = """\
I compiled `llama.cpp` with [`cuBLAS` support](https://github.com/ggerganov/llama.cpp?tab=readme-ov-file#cublas):

```
 make clean && make LLAMA_CUBLAS=1
```

I then run `llama.cpp` with:

```
./main -m ./models/Llama-2-7B-GGUF/llama-2-7b.Q8_0.gguf -p "test"
```
"""

# Modelled on ggml-org/llama.cpp#1283 (its build and run typed at the llama.cpp directory's prompt, which the issue
# writes `llama.cpp$`), with the prompt's user and host.
TYPED_BUILD = """\
gj@box:~/llama.cpp$ LLAMA_CUBLAS=1 make -j 16
I llama.cpp build info:
I UNAME_S:  Linux
I CC:       cc (Ubuntu 10.4.0-4ubuntu1~22.04) 10.4.0

gj@box:~/llama.cpp$ ./main -m ./models/ggml-model-q4_0.bin -p "Building a website" -n 128
main: build = 487 (2d099e5)
"""

# Modelled: the same words, built inside a container: the words name it, so they say nothing of the host.
BUILT_IN_CONTAINER = """\
I compiled llama.cpp inside the docker container with make LLAMA_CUBLAS=1.

```
./main -m ./models/llama-2-7b.Q8_0.gguf -p "test"
```
"""


def test_stated_build_run_by_path_is_a_host_program(tmp_path: Path) -> None:
    assert capture_checks("1832", GPU)[GPU].status == "not-applicable"
    got = paste_checks(tmp_path, STATED_BUILD, GPU, "CTR-SHM-SIZE")
    assert got[GPU].status == "not-applicable"
    # A build of the user's own is a weaker sign of the host than a service: one process stays the reason.
    assert got["CTR-SHM-SIZE"].status == "not-an-issue"


def test_typed_build_at_a_host_prompt_is_a_host_program(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, TYPED_BUILD, GPU)[GPU].status == "not-applicable"


def test_build_words_that_name_a_container_decide_nothing(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, BUILT_IN_CONTAINER, GPU)[GPU].status == "unknown"


def test_unscheduled_pod_has_no_placement_and_its_wait_no_peers() -> None:
    # Real: NVIDIA/k8s-device-plugin#102 (corpus 1837): Pending, Node <none>, PodScheduled False, `sleep 100000`.
    got = capture_checks("1837", "CTR-K8S-GPU-TOPOLOGY", "CTR-SECCOMP-NUMA")
    assert got["CTR-K8S-GPU-TOPOLOGY"].status == "not-applicable"
    assert got["CTR-SECCOMP-NUMA"].status == "not-an-issue"
    # Real: triton pod pending on Insufficient nvidia.com/gpu (corpus 712): the same reading.
    assert capture_checks("712", "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"].status == "not-applicable"


# Modelled: a scheduled pod's cut spec (a node named, Running) whose container waits: placement stays open.
SCHEDULED_POD = """\
```
Name:         gpu-pod
Namespace:    default
Node:         gpu-node-1/10.0.0.5
Status:       Running
Containers:
  cuda-container:
    Image:      nvidia/cuda:9.0-base
    Command:
      sleep
    Args:
      100000
    Limits:
      nvidia.com/gpu:  2
Conditions:
  Type           Status
  PodScheduled   True
```
"""


def test_scheduled_pod_keeps_its_placement_open(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, SCHEDULED_POD, "CTR-K8S-GPU-TOPOLOGY")["CTR-K8S-GPU-TOPOLOGY"]
    assert got.status == "unknown"


def test_host_service_shm_is_not_applicable() -> None:
    # Real: ollama/ollama#5240 (corpus 1845): ollama's systemd service, one runner process.
    got = capture_checks("1845", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert got.status == "not-applicable" and "Started Ollama Service" in got.message


def test_host_service_unit_shm_is_not_applicable() -> None:
    # Real (corpus 920): a systemd unit whose ExecStart runs koboldcpp, one process.
    got = capture_checks("920", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert got.status == "not-applicable" and "systemd unit" in got.message


def test_typed_one_process_server_keeps_its_reason() -> None:
    # Real: ollama/ollama#7664 (corpus 1798): `ollama serve` typed at a ClearML host's root prompt, one runner
    # process: a prompt is a weaker sign of the host than a service, and one process is the reader's reason.
    assert capture_checks("1798", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"
