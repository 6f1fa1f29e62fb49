"""CUDA's "unknown error" at start proves CTR-GPU-ACCESS only where the paste shows a container given GPUs.

In such a container the line is a GPU it cannot open (a missing or stale /dev/nvidia-uvm, a device cgroup that lost
the GPUs); on a bare host the same line is another fault (the driver after a suspend), so there it proves nothing of
this check (facts/symptoms.py `Symptom.within`, checks/registry.py `Sharpen.shows`). NVML's "Unknown Error" needs no
such setting: NVIDIA documents it as the container's failure (tests/test_shown_failures.py).
Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

IN_CONTAINER = [
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/1743 (the run of step 3, then the failure it reports)
    ("```bash\ndocker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi\n```\n\n"
     "```text\ncuInit(0) failed -> CUDA_ERROR_UNKNOWN: unknown error\n```\n"),
    # https://github.com/ultralytics/yolov5/issues/2406
    ("Input:\n```\n# pull image \nsudo docker pull ultralytics/yolov5:latest\n\n# run container\n"
     "sudo docker run --ipc=host --gpus all -it ultralytics/yolov5:latest\n\n# run command\n"
     "python -c \"import torch; print(torch.cuda.is_available())\"\n```\n\nOutput:\n```\n"
     "/opt/conda/lib/python3.8/site-packages/torch/cuda/__init__.py:52: UserWarning: CUDA initialization: CUDA "
     "unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
     "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero. (Triggered internally at  "
     "../c10/cuda/CUDAFunctions.cpp:104.)\n  return torch._C._cuda_getDeviceCount() > 0\nFalse\n```\n"),
    # https://github.com/manzolo/openai-whisper-docker/issues/3
    ("```bash\n$ docker run --gpus all -it -v ${PWD}/models:/root/.cache/whisper -v ${PWD}/audio-files:/app "
     "openai-whisper-image whisper audio-file.mp3 --device cuda --model large-v3 --language Italian --output_dir /app "
     "--output_format txt\n/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA "
     "initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env "
     "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero. (Triggered "
     "internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0\n```\n"),
]


@pytest.mark.parametrize("text", IN_CONTAINER)
def test_cuda_unknown_error_in_a_container_given_gpus_is_an_access_issue(tmp_path: Path, text: str) -> None:
    res = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "issue"
    assert "unknown error" in res.message.lower()


def test_llama_cpp_compose_with_four_gpus_and_cuda_unknown_error() -> None:
    # corpus 282 (ggml-org/llama.cpp#1866): the compose service reserves 4 GPUs; the tool said ok before.
    res = capture_checks("282", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "issue"
    assert any("ggml_cuda_init: failed to initialize CUDA: unknown error" in line for line in res.evidence)


def test_nvml_unknown_error_in_a_pod_stays_an_access_issue() -> None:
    # corpus 273: the pod spec requests nvidia.com/gpu and NVML fails inside it after 30 s.
    assert capture_checks("273", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


def test_cuda_unknown_error_on_a_bare_host_proves_nothing_of_the_container(tmp_path: Path) -> None:
    # https://github.com/ggml-org/llama.cpp/issues/7218 (a server built on the host, no container in the paste)
    text = ("device: NVIDIA GeForce RTX 3090\n"
            "env: NVIDIA-SMI 545.29.02              Driver Version: 545.29.02    CUDA Version: 12.3 \n"
            "cmd: make server LLAMA_CUDA=1 CUDA_DOCKER_ARCH=all\n"
            "error:  ggml_cuda_init: failed to initialize CUDA: unknown error\n")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "issue"


def test_pytorch_unknown_error_with_only_prose_of_a_pod_stays_unknown(tmp_path: Path) -> None:
    # https://github.com/GoogleCloudPlatform/container-engine-accelerators/issues/248: "running torchserve in GKE" is
    # prose; no pod spec or device node in the paste shows a container given GPUs.
    text = ("```python\n>>> torch.cuda.is_available()\n/home/venv/lib/python3.8/site-packages/torch/cuda/__init__.py:82: "
            "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
            "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available "
            "devices to be zero. (Triggered internally at  ../c10/cuda/CUDAFunctions.cpp:112.)\n"
            "  return torch._C._cuda_getDeviceCount() > 0\n```\n")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_the_same_compose_without_the_error_is_ok(tmp_path: Path) -> None:
    # Modelled: corpus 282's compose service alone, CUDA starting (no error line), llama.cpp's device list below it.
    text = ("llama-cpp:\n    image: ghcr.io/ggerganov/llama.cpp:server-cuda\n    deploy:\n      resources:\n"
            "        reservations:\n          devices:\n            - driver: nvidia\n"
            "              capabilities: [gpu]\n              count: 4\n")
    listed = text + ("ggml_cuda_init: found 1 CUDA devices:\n"
                     "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n")
    assert paste_checks(tmp_path, listed, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"
    # Its request alone shows no GPU inside (issue 28 h121c).
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


# CUDA's error 304 (cudaErrorOperatingSystem) from a container given GPUs: the failure shown beats the request.
OS_CALL_IN_CONTAINER = [
    # https://github.com/abetlen/llama-cpp-python/issues/645 (fixed with `--security-opt seccomp=unconfined`); modelled
    # in one place: the pip build directory before `vendor/` is left out of the error line.
    ("```\ndocker run --gpus=all -ti -p 8080:8080 \\\n  -v $PWD/model.bin:/content/saved-model/model.bin --cap-add "
     "SYS_RESOURCE -e USE_MLOCK=0 -e MODEL=/content/saved-model/model.bin llama-cpp-python bash\n\n"
     "python3 -m llama_cpp.server\nCUDA error 304 at vendor/llama.cpp/ggml-cuda.cu:5065: OS call failed or operation "
     "not supported on this OS\n```\n"),
]


@pytest.mark.parametrize("text", OS_CALL_IN_CONTAINER)
def test_cuda_error_304_in_a_container_given_gpus_is_an_access_issue(tmp_path: Path, text: str) -> None:
    res = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "issue"
    assert "error 304" in res.message


def test_cuda_error_304_in_the_ktransformers_container() -> None:
    # corpus 984 (kvcache-ai/ktransformers#522): `--gpus all`, then torch's warning retyped with `0S`; ok before.
    res = capture_checks("984", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "issue"
    assert "Error 304: 0S call failed" in res.message


def test_cuda_error_304_on_a_bare_host_proves_nothing_of_containers(tmp_path: Path) -> None:
    # Modelled counter-example: the same line with no container in the paste is another fault (a WSL or driver one).
    text = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? Error 304: OS call "
            "failed or operation not supported on this OS\n")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "issue"
