"""DRV-CUDA-COMPAT where CUDA's error 35 comes from a container started with no GPU request
(facts/docker.DockerContainers.none_given_gpus).

cudart answers `CUDA driver version is insufficient for CUDA runtime version` (cudaErrorInsufficientDriver, 35) also
where it loads no driver library at all. A container whose whole `docker run` asks for no GPU (no --gpus, nvidia
runtime, /dev/nvidia* device or NVIDIA_VISIBLE_DEVICES) gets no driver library under Docker's own runc. The line then
names no driver version to compare, and the check stays unknown (both readers of corpus 1959). The same line under a
container given GPUs stays DRV-CUDA-COMPAT's issue.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

COMPAT = "DRV-CUDA-COMPAT"

# Real: https://github.com/triton-inference-server/fastertransformer_backend/issues/111 (the setup guide's docker run
# with no --gpus; gpt_gemm inside it fails with error 35, and the fix the user found is nvidia-docker).
FT_111 = """\
```
docker run -it \\
    --shm-size=1g --ulimit memlock=-1 \\
    -v ${WORKSPACE}:/workspace \\
    --name ft_backend_builder \\
    ${TRITON_DOCKER_IMAGE} bash
```
```
[FT][INFO] Arguments:
[FT][INFO]   batch_size: 8

terminate called after throwing an instance of 'std::runtime_error'
  what():  [FT][ERROR] CUDA runtime error: CUDA driver version is insufficient for CUDA runtime version /workspace/build/fastertransformer_backend/build/_deps/repo-ft-src/src/fastertransformer/models/multi_gpu_gpt/gpt_gemm.cc:74

Aborted (core dumped)
```
"""

# Real: https://github.com/triton-inference-server/server/issues/2674 (Triton 21.02's quick start run without
# --gpus: the user's command and the log lines after the image's banner, the banner left out so that the command alone
# carries the rule).
TRITON_2674 = """\
$ docker run --name test-triton  --rm -p9000:8000 -p9001:8001 -p9002:8002 -v $(pwd)/model_repository:/models nvcr.io/nvidia/tritonserver:21.02-py3 tritonserver --model-repository=/models

I0327 01:23:02.966714 1 libtorch.cc:940] TRITONBACKEND_Initialize: pytorch
E0327 01:23:03.175862 1 pinned_memory_manager.cc:202] failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA runtime version
"""


def test_error_35_in_a_container_given_no_gpu_is_unknown(tmp_path: Path) -> None:
    for text in (FT_111, TRITON_2674):
        result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
        assert result.status == "unknown", (text[:60], result.message)
        assert "no GPU request" in result.message


def test_the_triton_cpuset_thread() -> None:
    # Corpus 1959 (triton-inference-server/server#6325): two docker runs of Triton 22.08, neither with --gpus, and
    # Triton's pinned-memory line with error 35.
    result = capture_checks("1959", COMPAT)[COMPAT]
    assert result.status == "unknown", result.message


def test_error_35_in_a_container_given_gpus_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: the same run with --gpus all; the driver reached the container, so error 35 is a driver too old.
    text = TRITON_2674.replace("docker run --name", "docker run --gpus all --name")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == "issue", result.message
