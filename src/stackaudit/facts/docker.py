"""Docker containers seen from their host: `docker ps -q`, then `docker inspect` of those.

Only read where the `docker` CLI exists (a Docker host, or a container with the socket). The
host layer redacts `docker inspect` structurally (Env, Args, Cmd): secrets never reach here.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.facts._parse import (
    ParseError,
    argv_value,
    cuda_visible_devices,
    cuda_visible_entries,
    engine_of,
    parse_cpulist,
    sizes_from_argv,
    sizes_unread,
)
from stackaudit.facts.processes import launcher_ranks_per_host
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, parser, provider, union
from stackaudit.facts.shm import ShmInfo
from stackaudit.facts.sources import DOCKER_INSPECT
from stackaudit.facts.sources import DOCKER_PS as DOCKER_PS_SOURCE
from stackaudit.host.limits import load_json

DOCKER_PS = DOCKER_PS_SOURCE.argv
DOCKER_DEFAULT_SHM = 64 * 1024 * 1024
# The extended resource NVIDIA's Kubernetes device plugin allocates GPUs by (a container's `resources.limits`).
K8S_GPU_RESOURCE = "nvidia.com/gpu"
# Extended resources that give a container a slice of each GPU it gets, the rest left to other pods: HAMi's
# (https://github.com/Project-HAMi/HAMi#quick-start: device memory in MiB, or in percent, and percent of the SMs),
# Volcano's vGPU plugin, derived from HAMi's (volcano.sh/vgpu-memory in MiB, volcano.sh/vgpu-cores in percent),
# and Alibaba's GPU share scheduler (https://github.com/AliyunContainerService/gpushare-scheduler-extender:
# aliyun.com/gpu-mem in GiB). Each maps to the whole GPU's value ("": an amount, always a slice).
GPU_SHARE_RESOURCES: dict[str, str] = {
    "nvidia.com/gpumem": "", "nvidia.com/gpumem-percentage": "100", "nvidia.com/gpucores": "100",
    "volcano.sh/vgpu-memory": "", "volcano.sh/vgpu-cores": "100", "aliyun.com/gpu-mem": "",
}
INSPECT_TIMEOUT_S = 8.0
# How a serving container shows itself: its image or its command line.
# Images whose own environment sets NVIDIA_VISIBLE_DEVICES=all: NVIDIA's CUDA base images (`ENV
# NVIDIA_VISIBLE_DEVICES=all`, https://gitlab.com/nvidia/container-images/cuda/-/blob/master/dist/12.4.1/ubuntu2204/base/Dockerfile)
# and the NGC images built on them (nvcr.io/nvidia/...): `--runtime nvidia` alone gives them every GPU. So do
# ollama's image (its Dockerfile's last stage sets `ENV NVIDIA_VISIBLE_DEVICES=all`; not its `:rocm` tags, a stage of
# their own without it, corpus 1065) and the NVIDIA device plugin's (`nvidia/k8s-device-plugin`, corpus 1386).
_GPU_ENV_IMAGE = re.compile(r"^(?:nvcr\.io/nvidia/|(?:docker\.io/)?nvidia/(?:cuda|k8s-device-plugin):|"
                            r"(?:docker\.io/)?ollama/ollama(?!:\S*rocm)(?::|@|$))")
# The spec origins (facts/container_specs.py) under which a container gets no GPU unless its spec asks for one.
_NO_GPU_BY_DEFAULT = ("docker run", "compose")
# An image built for ROCm (AMD's GPU stack), by its name: the `rocm` repository or organisation (`rocm/vllm:latest`,
# `rocm/pytorch`), or a tag naming the build (ollama's `ollama/ollama:rocm`, `:0.4.0-rc5-rocm`; vLLM's and TGI's
# `-rocm` tags).
ROCM_IMAGE = re.compile(r"^(?:[\w.-]+/)?rocm/|:(?:[\w.-]*[-_.])?rocm(?:[-_.\d][\w.-]*)?$", re.IGNORECASE)
# NVIDIA's CUDA images name the CUDA runtime they ship in their tag (`nvidia/cuda:11.0.3-base-ubuntu20.04`, NGC's
# `nvcr.io/nvidia/cuda:12.4.1-devel-ubuntu22.04`); `latest` names none. A tag written with `cuda` before the version
# (`nvidia/cuda:cuda11.8.0-cudnn8-devel-ubuntu20.04`, corpus 2075) names the CUDA its user asks for.
_CUDA_IMAGE = re.compile(r"^(?:(?:docker\.io|nvcr\.io)/)?nvidia/cuda:(?:cuda)?(\d+\.\d+)(?:\.\d+)?(?:-|$)")
# NVIDIA's CUDA sample images name the CUDA they were built with after the sample (`nvcr.io/nvidia/k8s/cuda-sample:
# vectoradd-cuda10.2-ubi8`, the GPU operator's validator; `vectoradd-cuda12.5.0`); `cuda-sample:nbody` names none.
_CUDA_SAMPLE_IMAGE = re.compile(r"^(?:(?:nvcr\.io/)?nvidia/k8s/)?cuda-sample:[a-z]+-cuda(\d+\.\d+)(?:\.\d+)?(?:-|$)")
# PyTorch's official images name torch's CUDA after the torch release (`pytorch/pytorch:2.0.0-cuda11.7-cudnn8-runtime`,
# corpus 1287; https://hub.docker.com/r/pytorch/pytorch/tags): torch in the image is built for that CUDA and ships its
# runtime. `latest` names none.
_PYTORCH_IMAGE = re.compile(r"^(?:docker\.io/)?pytorch/pytorch:[\d.]+-cuda(\d+\.\d+)(?:\.\d+)?(?:-|$)")
# RAPIDS' images name the CUDA of the NVIDIA CUDA image they are built on after their release
# (`rapidsai/rapidsai:21.10-cuda11.0-runtime-centos7-py3.7`, corpus 2393; `rapidsai/base:24.10-cuda12.5-py3.12`;
# https://hub.docker.com/r/rapidsai/base/tags).
_RAPIDS_IMAGE = re.compile(r"^(?:docker\.io/|nvcr\.io/nvidia/)?rapidsai/[\w-]+:[\d.]+[ab]?-cuda(\d+\.\d+)(?:\.\d+)?(?:-|$)")


# The serving engines' images that name their CUDA in a tag suffix, torch's wheel label (`lmsysorg/sglang:v0.5.12-cu130`,
# corpus 810; `vllm/vllm-openai:v0.11.1-cu130`): the image is built on NVIDIA's CUDA image of that release, with torch
# built for it.
ENGINE_CUDA_IMAGE = re.compile(r"^(?:docker\.io/)?(?:lmsysorg/(sglang)|vllm/(vllm)-openai):[\w.-]*?(?<![a-z])cu(\d{2})(\d)"
                               r"(?![\w.])")
# Any other image whose tag holds torch's wheel label as a word of its own (`yanwk/comfyui-boot:cu124-cn`, corpus 2369;
# `:cu121`, `:2.1-cu118-slim`): the label names the CUDA of the torch wheels the image installs, whose runtime it ships.
_WHEEL_LABEL_IMAGE = re.compile(r"^[\w./-]+:(?:[\w.-]*?[-_.])?cu(\d{2})(\d)(?![\w.])")


# Text Generation Inference's CUDA images name their release, not their CUDA (`ghcr.io/huggingface/text-generation-
# inference:2.0.4`); its Dockerfile at each release tag pins the CUDA torch is installed for, the runtime torch ships
# (https://github.com/huggingface/text-generation-inference, Dockerfile): `FROM nvidia/cuda:11.8.0-devel` from v0.4.2,
# then `ARG CUDA_VERSION=11.8` through v1.1.1, 12.1 from v1.2.0, 12.4 from v2.3.0 (conda's `pytorch-cuda`); from v3.1.1
# `uv pip install torch==2.6` (PyPI's default wheel: CUDA 12.4), from v3.3.1 torch 2.7 (CUDA 12.6). Each row: the first
# release of the CUDA. A tag with a suffix (`-rocm`, `-intel`, `-gaudi`, `-trtllm`) is another build; a release after
# the last row's known tag (3.3.7) is not told.
TGI_IMAGE = re.compile(r"^(?:ghcr\.io/)?huggingface/text-generation-inference:v?(\d+)\.(\d+)(?:\.(\d+))?$")
# TGI's image of any tag (`ghcr.io/huggingface/text-generation-inference:1.4`, `:latest`, `:sha-3af1a11`), from any
# registry that mirrors it under its name (corpus 300: `registry.internal.huggingface.tech/api-inference/community/
# text-generation-inference:0.8.2`): its entrypoint is `text-generation-launcher`, which takes the arguments after the
# image (the launcher's --help). Builds for other hardware name it in the tag (`-rocm`, `-intel`), still the launcher.
TGI_ENGINE = re.compile(r"^(?:[\w.:-]+/)*text-generation-inference(?:[:@]\S*)?$")
TGI_CUDA = ((0, 4, 2, "11.8"), (1, 2, 0, "12.1"), (2, 3, 0, "12.4"), (3, 3, 1, "12.6"))
TGI_LAST_KNOWN = (3, 3, 7)
# Text Embeddings Inference's CUDA images name their release after the GPU architecture they are built for
# (`ghcr.io/huggingface/text-embeddings-inference:86-1.5`, `:1.5` for Ampere 8.0, `turing-1.5`, `hopper-1.5`, `89-1.5`,
# `100-1.9`, `cuda-1.9` for every one, `-grpc` after); `cpu-1.5` is the CPU build. Its Dockerfile-cuda (and
# Dockerfile-cuda-all) at each release tag starts its runtime stage FROM NVIDIA's CUDA image, the runtime the binary
# links (https://github.com/huggingface/text-embeddings-inference): `nvidia/cuda:12.2.0-base` from v0.1.0, 12.0.0 from
# v0.4.0, 12.2.0 again from v1.0.0, `12.9.1-runtime` from v1.9.0. Each row: the first release of the CUDA; a release
# after the last row's known tag (1.9.3) is not told.
TEI_IMAGE = re.compile(r"^(?:ghcr\.io/)?huggingface/text-embeddings-inference:(?:(?:turing|hopper|cuda|\d{2,3})-)?"
                       r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:-grpc)?$")
TEI_CUDA = ((0, 1, 0, "12.2"), (0, 4, 0, "12.0"), (1, 0, 0, "12.2"), (1, 9, 0, "12.9"))
TEI_LAST_KNOWN = (1, 9, 3)


def tgi_image_release(image: str) -> str:
    """The release a Text Generation Inference image's tag names (TGI_IMAGE: `1.1.0`, `1.4`); "" for any other image or
    tag (`:latest`, `:sha-3af1a11`, another build's suffix).

    >>> tgi_image_release("ghcr.io/huggingface/text-generation-inference:1.1.0"), tgi_image_release('"x:latest"')
    ('1.1.0', '')
    """
    m = TGI_IMAGE.match(image.strip().strip("\"'`").lower())
    return ".".join(g for g in m.groups() if g is not None) if m is not None else ""


def tgi_image_cuda(image: str) -> str:
    """The CUDA runtime of Text Generation Inference's image of the release its tag names (TGI_CUDA), or of Text
    Embeddings Inference's CUDA image (TEI_CUDA); "" for any other image, a tag that names no release or another build,
    and a release before the first row or after the last known tag.

    >>> tgi_image_cuda("ghcr.io/huggingface/text-embeddings-inference:86-1.5")
    '12.2'
    >>> tgi_image_cuda("ghcr.io/huggingface/text-embeddings-inference:cpu-1.5")
    ''
    """
    for pattern, rows, last in ((TGI_IMAGE, TGI_CUDA, TGI_LAST_KNOWN), (TEI_IMAGE, TEI_CUDA, TEI_LAST_KNOWN)):
        m = pattern.match(image.strip().lower().rstrip("."))
        if m is None:
            continue
        tag = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
        if tag > last:
            return ""
        return next((cuda for *first, cuda in reversed(rows) if tag >= tuple(first)), "")
    return ""


# Text Generation Inference's own description of itself (its router's `GET /info`, which `text-generation-launcher`'s
# users paste as JSON): `"version": "1.4.0"` is the release (its Cargo version), and a `"docker_label": "sha-c2d4a3b"`
# that is not null says the router runs in TGI's own image built at that commit (its Dockerfile passes DOCKER_LABEL as
# the image's tag; a source build leaves it null), so the CUDA is that release's image's (TGI_CUDA). TGI's keys beside
# them (`"max_best_of"`, `"model_device_type"`) tell its JSON from another program's. Corpus 1332.
TGI_INFO_LABEL = re.compile(r'^\s*"docker_label":\s*"(sha-[0-9a-f]{7,40})"\s*,?\s*$')
_TGI_INFO_VERSION = re.compile(r'^\s*"version":\s*"(\d+\.\d+\.\d+)"\s*,?\s*$')
_TGI_INFO_KEYS = re.compile(r'^\s*"(?:max_best_of|model_device_type|max_concurrent_requests)":')
# The line a TGI /info object's release and image label are read into (evidence lines, facts/cuda_ran.runtimes_in_line).
TGI_INFO_LINE = re.compile(r'^text-generation-inference /info: "version": "(\d+\.\d+\.\d+)", "docker_label": "(sha-[0-9a-f]+)"$')
_TGI_INFO_LOOK = 40


def tgi_info_line(lines: Sequence[str], i: int) -> str:
    """TGI's /info object's release and image label as one line (TGI_INFO_LINE), where line `i` is its non-null
    `"docker_label"` and the same object (the lines back to its opening brace) holds its `"version"` and one of TGI's
    own keys; "" otherwise.

    >>> tgi_info_line(['{', '  "model_device_type": "cuda",', '  "version": "1.4.0",', '  "sha": "c2d4a3b5",',
    ...                '  "docker_label": "sha-c2d4a3b"', '}'], 4)
    'text-generation-inference /info: "version": "1.4.0", "docker_label": "sha-c2d4a3b"'
    >>> tgi_info_line(['{', '  "version": "1.4.0",', '  "docker_label": "sha-c2d4a3b"', '}'], 2)
    ''
    """
    label = TGI_INFO_LABEL.match(lines[i])
    if label is None:
        return ""
    version, own = "", False
    for line in reversed(lines[max(0, i - _TGI_INFO_LOOK):i]):
        if line.strip() in ("{", "}"):
            break
        version = version or ((m := _TGI_INFO_VERSION.match(line)) and m.group(1)) or ""
        own = own or bool(_TGI_INFO_KEYS.match(line))
    if not (version and own):
        return ""
    return f'text-generation-inference /info: "version": "{version}", "docker_label": "{label.group(1)}"'


# NVIDIA's NGC framework containers (PyTorch, TensorFlow, Triton Inference Server incl. its `-trtllm-python-py3` and
# `-vllm-python-py3` builds, TensorRT, MXNet) name their monthly release in the tag (`nvcr.io/nvidia/tritonserver:
# 20.03.1-py3`), and every container of one release is built on one CUDA. Each row: the release, its CUDA, the driver
# its release notes require ("Release 20.03 is based on NVIDIA CUDA 10.2.89, which requires NVIDIA Driver release
# 440.33.01"; data-center GPUs may run older branches through the forward-compatibility package), and the page that
# says so (docs.nvidia.com/deeplearning/, the release notes each container's Frameworks Support Matrix links). A
# release not in the table is not told: the table holds only the releases whose notes were read.
_NOTES = "https://docs.nvidia.com/deeplearning/"
NGC_RELEASE_CUDA: dict[str, tuple[str, str, str]] = {
    "18.09": ("10.0", "410", _NOTES + "frameworks/mxnet-release-notes/rel_18.09.html"),
    "18.12": ("10.0", "410", _NOTES + "dgx/mxnet-release-notes/rel_18.12.html"),
    "19.01": ("10.0", "410", _NOTES + "frameworks/mxnet-release-notes/rel_19-01.html"),
    "19.02": ("10.0", "410", _NOTES + "dgx/tensorflow-release-notes/rel_19.02.html"),
    "19.03": ("10.1", "418", _NOTES + "frameworks/pytorch-release-notes/rel_19-03.html"),
    "19.04": ("10.1", "418", _NOTES + "digits/digits-release-notes/rel_19-04.html"),
    "19.06": ("10.1", "418", _NOTES + "digits/digits-release-notes/rel_19-06.html"),
    "19.08": ("10.1", "418.87", _NOTES + "sdk/inference-release-notes/rel_19-08.html"),
    "19.10": ("10.1", "418", _NOTES + "triton-inference-server/release-notes/rel_19-10.html"),
    "19.12": ("10.2", "440.30",
              _NOTES + "sdk/inference-server-archived/tensorrt_inference_server_1100/inference-release-notes/rel_19-12.html"),
    "20.01": ("10.2", "440.33", _NOTES + "triton-inference-server/release-notes/rel_20-01.html"),
    "20.02": ("10.2", "440.33", _NOTES + "frameworks/pytorch-release-notes/rel_20-02.html"),
    "20.03": ("10.2", "440.33", _NOTES + "frameworks/tensorflow-release-notes/rel_20-03.html"),
    "20.06": ("11.0", "450", _NOTES + "frameworks/pytorch-release-notes/rel_20-06.html"),
    "20.07": ("11.0", "450", _NOTES + "sdk/inference-release-notes/rel_20-07.html"),
    "20.08": ("11.0", "450", _NOTES + "triton-inference-server/release-notes/rel_20-08.html"),
    "20.09": ("11.0", "450", _NOTES + "sdk/inference-release-notes/rel_20-09.html"),
    "20.10": ("11.1", "455", _NOTES + "frameworks/tensorflow-release-notes/rel_20-10.html"),
    "20.11": ("11.1", "455", _NOTES + "sdk/inference-release-notes/rel_20-11.html"),
    "20.12": ("11.1", "455", _NOTES + "sdk/inference-release-notes/rel_20-12.html"),
    "21.02": ("11.2", "460.27", _NOTES + "sdk/inference-release-notes/rel_21-02.html"),
    "21.03": ("11.2", "460.32", _NOTES + "sdk/inference-release-notes/rel_21-03.html"),
    "21.04": ("11.3", "465.19", _NOTES + "sdk/inference-release-notes/rel_21-04.html"),
    "21.05": ("11.3", "465.19", _NOTES + "triton-inference-server/release-notes/rel_21-05.html"),
    "21.07": ("11.4", "470", _NOTES + "dgx/dlprof-release-notes/dlprof-release-notes-2107.html"),
    "21.09": ("11.4", "470", _NOTES + "sdk/inference-release-notes/rel_21-09.html"),
    # Quoted from the Frameworks Support Matrix by Triton's maintainer (triton-inference-server/server#3773).
    "21.10": ("11.4", "470", "https://github.com/triton-inference-server/server/issues/3773"),
    "21.11": ("11.5", "495", _NOTES + "triton-inference-server/release-notes/rel_21-11.html"),
    "21.12": ("11.5", "495", _NOTES + "sdk/inference-release-notes/rel_21-12.html"),
    "22.01": ("11.6", "510", _NOTES + "sdk/inference-release-notes/rel_22-01.html"),
    "22.02": ("11.6", "510", _NOTES + "sdk/inference-release-notes/rel_22-02.html"),
    "22.03": ("11.6", "510", _NOTES + "sdk/inference-release-notes/rel_22-03.html"),
    "22.04": ("11.6", "510", _NOTES + "triton-inference-server/release-notes/rel_22-04.html"),
    "22.05": ("11.7", "515", _NOTES + "sdk/inference-release-notes/rel_22-05.html"),
    "22.06": ("11.7", "515", _NOTES + "triton-inference-server/release-notes/rel_22-06.html"),
    "22.07": ("11.7", "515", _NOTES + "triton-inference-server/release-notes/rel_22-07.html"),
    "22.09": ("11.8", "520", _NOTES + "triton-inference-server/release-notes/rel-22-09.html"),
    "22.10": ("11.8", "520", _NOTES + "sdk/inference-release-notes/rel-22-10.html"),
    "22.11": ("11.8", "520", _NOTES + "triton-inference-server/release-notes/rel-22-11.html"),
    "22.12": ("11.8", "520", _NOTES + "sdk/inference-release-notes/rel-22-12.html"),
    "23.01": ("12.0", "525", _NOTES + "frameworks/tensorflow-release-notes/rel-23-01.html"),
    "23.02": ("12.0", "525", _NOTES + "triton-inference-server/release-notes/rel-23-02.html"),
    "23.04": ("12.1", "530", _NOTES + "triton-inference-server/release-notes/rel-23-04.html"),
    "23.05": ("12.1", "530", _NOTES + "sdk/inference-release-notes/rel-23-05.html"),
    "23.06": ("12.1", "530", _NOTES + "sdk/inference-release-notes/rel-23-06.html"),
    "23.07": ("12.1", "530", _NOTES + "sdk/inference-release-notes/rel-23-07.html"),
    "23.08": ("12.2", "535", _NOTES + "triton-inference-server/release-notes/rel-23-08.html"),
    "23.09": ("12.2", "535", _NOTES + "sdk/inference-release-notes/rel-23-09.html"),
    "23.11": ("12.3", "545", _NOTES + "triton-inference-server/release-notes/rel-23-11.html"),
    "23.12": ("12.3", "545", _NOTES + "triton-inference-server/release-notes/rel-23-12.html"),
    "24.01": ("12.3", "545", _NOTES + "triton-inference-server/release-notes/rel-24-01.html"),
    "24.02": ("12.3", "545", _NOTES + "sdk/inference-release-notes/rel-24-02.html"),
    "24.04": ("12.4", "545", _NOTES + "triton-inference-server/release-notes/rel-24-04.html"),
    "24.05": ("12.4", "545", _NOTES + "frameworks/mxnet-release-notes/rel-24-05.html"),
    # Triton's notes: "Release 24.06 is based on NVIDIA CUDA 12.5.0.23, which requires NVIDIA Driver release 545".
    "24.06": ("12.5", "545", _NOTES + "triton-inference-server/release-notes/rel-24-06.html"),
    "24.08": ("12.6", "560", _NOTES + "triton-inference-server/release-notes/rel-24-08.html"),
    "24.09": ("12.6", "560", _NOTES + "triton-inference-server/release-notes/rel-24-09.html"),
    "24.10": ("12.6", "560", _NOTES + "triton-inference-server/release-notes/rel-24-10.html"),
    "24.12": ("12.6", "560",
              _NOTES + "triton-inference-server/archives/triton-inference-server-2530/user-guide/docs/introduction/release_notes.html"),
    # The PyTorch release notes quoted in foundation-model-stack/fms-hf-tuning#675 ("Release 25.02 is based on CUDA
    # 12.8.0.38 which requires NVIDIA Driver release 570 or later").
    "25.02": ("12.8", "570", "https://github.com/foundation-model-stack/fms-hf-tuning/pull/675"),
    # The note says driver 560 beside CUDA 12.8.1, as quoted here; CUDA 12.8's own toolkit ships r570.
    "25.03": ("12.8", "560", _NOTES + "triton-inference-server/release-notes/rel-25-03.html"),
    "25.06": ("12.9", "575", _NOTES + "triton-inference-server/release-notes/rel-25-06.html"),
    # Triton's notes: "Release 25.08 is based on CUDA 13.0.0.044 which requires NVIDIA Driver release 575 or later"
    # (a table quoted in triton-inference-server/server#8370 said CUDA 12.9.0.043, which the notes do not).
    # From 25.08 to 25.12 the notes say driver 575, where CUDA 13's own toolkits ship R580 and R590.
    "25.08": ("13.0", "575", _NOTES + "triton-inference-server/release-notes/rel-25-08.html"),
    "25.10": ("13.0", "575", _NOTES + "triton-inference-server/release-notes/rel-25-10.html"),
    # "Release 25.12 is based on CUDA 13.1.0.36" (corpus 1735 shows torch `...nv25.12` beside CUDA 13.1).
    "25.12": ("13.1", "575", _NOTES + "triton-inference-server/release-notes/rel-25-12.html"),
}
# An NGC framework image by its release tag; a CPU-only build (Triton's `-cpu-only-py3`) or a Jetson build (`-igpu`)
# is another build and is not read.
_NGC_IMAGE = re.compile(r"^nvcr\.io/nvidia/(?:pytorch|tensorflow|tritonserver|tensorrtserver|tensorrt|mxnet):(\d{2}\.\d{2})"
                        r"(?:\.\d+)?(?:-(?![\w.-]*(?:cpu|igpu))[\w.-]+)?$")
# The start banner of an NGC framework container (`NVIDIA Release 20.09 (build 16016295)`, under `== Triton Inference
# Server ==` or `== PyTorch ==`): the release the container was built from.
NGC_BANNER = re.compile(r"^\s*NVIDIA Release (\d{2}\.\d{2}) \(build \d+\)\s*$")
# The version line of NVIDIA's CUDA image banner (`== CUDA ==`, then `CUDA Version 12.2.0`); facts/cuda_ran.CUDA_BANNER
# reads its version.
_CUDA_VERSION_LINE = re.compile(r"^\s*CUDA Version \d+\.\d+(?:\.\d+)?\s*$")
# The lines of the driver check in the entrypoint of NVIDIA's NGC images (nvidia_entrypoint.sh), by what it found.
# Each row holds the words that mark the line (NGC_CHECK_LINE reads them in any case) and the line as the script prints it.
NGC_CHECK: dict[str, tuple[str, re.Pattern[str]]] = {
    # The host driver is older than the one the image was built for (NVIDIA/TensorRT-LLM#23, NVIDIA/nvidia-docker#1479,
    # hiyouga/LlamaFactory#5962): `ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but`.
    # The driver release it names ships the image's CUDA.
    "built-for": ("built for NVIDIA Driver",
                  re.compile(r"This container was built for NVIDIA Driver Release (\d+)\.(\d+)")),
    # Its second line, which a paste may hold without the first: `version 510.85.02 was detected and compatibility
    # mode is UNAVAILABLE.`.
    "unavailable": ("Compatibility mode is UNAVAILABLE",
                    re.compile(r"was detected and compatibility mode is UNAVAILABLE")),
    # Its forward-compatibility NOTE: `NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.`
    # (NVIDIA/DeepLearningExamples#280), `CUDA Forward Compatibility mode ENABLED.`.
    "compat-enabled": ("Compatibility mode ENABLED", re.compile(r"Compatibility mode ENABLED")),
    # Its minor-version WARNING's next two lines (corpus 1502, 1864): `Using driver version 495.29.05 which has support
    # for CUDA 11.5.  This container` / `was built with CUDA 11.6 and will be run in Minor Version Compatibility mode.`.
    "minor-driver": ("which has support for CUDA",
                     re.compile(r"Using driver version (\d+\.\d+(?:\.\d+)?) which has support for CUDA (\d+)\.(\d+)")),
    "minor-built": ("will be run in Minor Version Compatibility",
                    re.compile(r"built with CUDA (\d+)\.(\d+) and will be run in Minor Version Compatibility")),
    # Its WARNING that no driver reached the container: `WARNING: The NVIDIA Driver was not detected.  GPU
    # functionality will not be available.`.
    "no-driver": ("NVIDIA Driver was not detected",
                  re.compile(r"The NVIDIA Driver was not detected\.\s+GPU functionality will not be available")),
    # A driver version it could not read: `Failed to detect NVIDIA driver version.`.
    "no-version": ("Failed to detect NVIDIA driver", re.compile(r"Failed to detect NVIDIA driver")),
}
# Any line of that check, whatever it found.
NGC_CHECK_LINE = re.compile("|".join(re.escape(mark) for mark, _ in NGC_CHECK.values()), re.IGNORECASE)
# The lines of that check that name the host's kernel driver, which the check reads from the loaded module
# (/proc/driver/nvidia/version in the 20.xx scripts, `nvidia-smi -i 0 --query-gpu=driver_version` in later ones): the
# minor-version WARNING's `Using driver version 495.29.05 which has support for CUDA 11.5.` (corpus 1864) and the
# ERROR's second line `version 418.67 was detected and compatibility mode is UNAVAILABLE.` (NVIDIA/TensorRT-LLM#23).
# The ERROR of a check that read no version (`version  was detected`, fauxpilot's log) names none. The
# forward-compatibility NOTE (`Using CUDA 12.3 driver version 545.23.08 with kernel driver version 470.256.02.`) is
# not read: its first version is the image's compatibility library, and DRV-CUDA-COMPAT does not judge that mode.
NGC_DRIVER_FOUND = (NGC_CHECK["minor-driver"][1],
                    re.compile(r"version (\d+\.\d+(?:\.\d+)?) was detected and compatibility mode is UNAVAILABLE"))


def ngc_driver_found(line: str) -> str:
    """The host driver version a line of the NGC entrypoint's driver check names (NGC_DRIVER_FOUND); "" for any
    other line.

    >>> ngc_driver_found("  Using driver version 495.29.05 which has support for CUDA 11.5.  This container")
    '495.29.05'
    >>> ngc_driver_found("       version  was detected and compatibility mode is UNAVAILABLE.")
    ''
    """
    return next((m.group(1) for pattern in NGC_DRIVER_FOUND if (m := pattern.search(line))), "")

# The lines an NGC start banner and its entrypoint print after the release line: the framework's version (`Triton
# Server Version 2.21.0`), the copyright and license lines (PyTorch's name each project's copyright; 2025's name
# nvidia.com's terms), the frame (`== PyTorch ==`), the entrypoint's notes and checks (`NOTE:`, `WARNING:`, `ERROR:`,
# their indented lines, a `[[...]]` status).
_NGC_BANNER_TEXT = re.compile(r"Copyright|\(c\)|All rights reserved|licen[cs]e|governed by|By pulling|GOVERNING TERMS|"
                              r"NVIDIA modifications|nvidia\.com/|\bVersion\s+\S+\s*$|^\s*=|^\s*(?:NOTE|WARNING|ERROR):|"
                              r"^\s+\S|^\s*\[\[", re.IGNORECASE)
_NGC_BANNER_LOOK = 80
# A line a log viewer puts between a container's lines, its time alone (Unraid's `09/12/2023 7:34:47 PM`, corpus 2815).
_TIME_ONLY = re.compile(r"^\s*\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[AP]M)?\s*$")
# A command line echoed after the banner (`llama-cli -m /models/... -ngl 99`, a wrapper's echo of what it runs: corpus
# 2146): not a line of the program's own output.
_COMMAND_ECHO = re.compile(r"^\s*(?:\S*/)?[\w.-]+\s+--?[A-Za-z][\w-]*(?:[\s=]|$)")
# The frame of NVIDIA's CUDA image banner (`== CUDA ==`), above its `CUDA Version 12.2.0` line.
_CUDA_FRAME = re.compile(r"^\s*== CUDA ==\s*$")
# The line the evidence reader adds after a banner shown to its end (ngc_banner_line).
NGC_BANNER_ENDED = "NGC entrypoint finished after: "


def ngc_banner_ended(lines: Sequence[str], i: int) -> bool:
    """Whether the NGC start banner at line `i` (NGC_BANNER, or the CUDA image's `CUDA Version` line) is shown to its
    end: a line after it that is neither blank, a log viewer's time alone, a command line echoed, nor the banner's or
    its entrypoint's own (_NGC_BANNER_TEXT, NGC_CHECK_LINE), which the command the entrypoint starts printed once every
    check of the entrypoint had run. A banner at the paste's end is not, nor one followed only by a command line.

    >>> ngc_banner_ended(["NVIDIA Release 22.04 (build 36821869)", "Copyright (c) 2018-2022, NVIDIA", "",
    ...                   "I0905 02:23:16.996647 1 libtorch.cc:1381] TRITONBACKEND_Initialize: pytorch"], 0)
    True
    >>> ngc_banner_ended(["I0905 02:23:16.996647 1 libtorch.cc", "NVIDIA Release 22.04 (build 36821869)"], 1)
    False
    >>> ngc_banner_ended(["CUDA Version 12.6.1", "09/12/2023 7:34:47 PM", "llama-cli -m /models/m.gguf -ngl 99"], 0)
    False
    """
    return any(line.strip() and not _NGC_BANNER_TEXT.search(line) and not NGC_CHECK_LINE.search(line)
               and not _TIME_ONLY.match(line) and not _COMMAND_ECHO.match(line)
               for line in lines[i + 1:i + 1 + _NGC_BANNER_LOOK])


def cuda_image_banner(lines: Sequence[str], i: int) -> bool:
    """Whether line `i` is the `CUDA Version 12.2.0` line of NVIDIA's CUDA image banner: `== CUDA ==` within the six
    lines above it (a log viewer's time lines between them, corpus 2815). A version line alone is no banner."""
    return bool(_CUDA_VERSION_LINE.match(lines[i])) and any(_CUDA_FRAME.match(line) for line in lines[max(0, i - 6):i])


def ngc_banner_line(lines: Sequence[str], i: int) -> str:
    """The NGC start banner's release line `i` as evidence, followed, where the paste shows the banner to its end
    (ngc_banner_ended), by the same line after NGC_BANNER_ENDED."""
    line = lines[i].strip()
    return f"{line}\n" + (f"{NGC_BANNER_ENDED}{line}\n" if ngc_banner_ended(lines, i) else "")


# LocalAI's All-in-One images' entrypoint (aio/entrypoint.sh) prints `NVIDIA GPU detected` (or `NVIDIA GPU detected via
# WSL2`) when lspci shows an NVIDIA GPU, then runs `nvidia-smi` in its container; where that fails it prints `NVIDIA GPU
# detected, but nvidia-smi is not installed` instead (facts/symptoms.py image-driver-tools-missing). The line alone,
# ending there, says the nvidia-smi output after it was printed inside the image's container (corpus 1953). A log
# prefix (`api-1  | `, a timestamp) may stand before it.
AIO_SMI_RAN = re.compile(r"(?:^|\|\s?)\s*NVIDIA GPU detected(?: via WSL2)?\s*$")


# Triton's NGC releases before 20.10 serve every model inside the one tritonserver process: its Python backend, whose
# stubs are processes that exchange tensors with the server through /dev/shm, came with 20.10 (Triton 2.4.0: "A new
# Python backend allows Python code to run as a model", https://docs.nvidia.com/deeplearning/sdk/inference-release-notes/
# rel_20-10.html), and its TensorRT-LLM backend, whose ranks run over MPI, with 23.10.
TRITON_ONE_PROCESS_BEFORE = "20.10"


def one_process_triton(image: str) -> str:
    """The NGC release of a Triton image that serves every model in its one process (a release before
    TRITON_ONE_PROCESS_BEFORE): `20.06` for `nvcr.io/nvidia/tritonserver:20.06-py3`; "" for any other image or release.

    >>> one_process_triton("nvcr.io/nvidia/tritonserver:20.06-py3"), one_process_triton("nvcr.io/nvidia/tritonserver:21.10-py3")
    ('20.06', '')
    """
    m = _NGC_IMAGE.match(image.strip().lower())
    if m is None or not re.search(r"/(?:tritonserver|tensorrtserver):", image.lower()):
        return ""
    return m.group(1) if m.group(1) < TRITON_ONE_PROCESS_BEFORE else ""


def ngc_release_cuda(release: str) -> str:
    """The CUDA of NGC release `release` (`20.03`: `10.2`, NGC_RELEASE_CUDA); "" for a release the table does not hold."""
    row = NGC_RELEASE_CUDA.get(release)
    return row[0] if row else ""


# The local label of torch as an NGC framework container builds it (`2.10.0a0+b4e4ee81d3.nv25.12`): the release.
NGC_TORCH_LABEL = re.compile(r"\+[0-9a-f]{7,40}\.nv(\d{2}\.\d{2})$")


def ngc_torch_cuda(version: str) -> str:
    """The CUDA of the NGC release a torch version's label names (`2.10.0a0+b4e4ee81d3.nv25.12`: `13.1`); "" for
    any other version or a release NGC_RELEASE_CUDA does not hold."""
    m = NGC_TORCH_LABEL.search(version.strip())
    return ngc_release_cuda(m.group(1)) if m else ""


# Text Embeddings Inference's CUDA images, each built for one compute capability (its Dockerfile-cuda's
# CUDA_COMPUTE_CAP), which the tag's prefix names: `turing-1.5` (7.5), `86-1.5` (8.6: A10, A40, RTX 3090), `89-1.5`
# (8.9: Ada), `hopper-1.5` (9.0); the bare release (`1.5`) is Ampere 80's (A100, A30) and is not read here, nor a
# tag of another form (https://huggingface.co/docs/text-embeddings-inference/supported_models, "Supported hardware";
# custom_container's runtime_compute_cap values).
_TEI_IMAGE = re.compile(r"^(?:ghcr\.io/)?huggingface/text-embeddings-inference:(turing|hopper|86|89)-\d+\.\d+")
_TEI_PREFIX_CAPABILITY = {"turing": "7.5", "86": "8.6", "89": "8.9", "hopper": "9.0"}


def tei_image_capability(image: str) -> str:
    """The compute capability a Text Embeddings Inference image's tag names it built for (_TEI_IMAGE:
    `ghcr.io/huggingface/text-embeddings-inference:86-1.5`: `8.6`); "" for any other image or tag."""
    m = _TEI_IMAGE.match(image.strip().lower())
    return _TEI_PREFIX_CAPABILITY[m.group(1)] if m else ""


def ngc_image_release(image: str) -> str:
    """The NGC release an NGC framework image's tag names (`nvcr.io/nvidia/tritonserver:20.03.1-py3`: `20.03`); ""
    for any other image, tag or build."""
    m = _NGC_IMAGE.match(image.strip().lower())
    return m.group(1) if m else ""


def ngc_image_cuda(image: str) -> str:
    """The CUDA of the NGC release an NGC framework image's tag names (`nvcr.io/nvidia/tritonserver:20.03.1-py3`:
    `10.2`); "" for any other image, tag or build, and a release the table does not hold."""
    return ngc_release_cuda(ngc_image_release(image))


# The lowest compute capability NGC framework releases support, by their first and last release read: each release's
# notes say `Release YY.MM supports CUDA compute capability 6.0 and higher` (or `and later`) under GPU Requirements,
# read for 19.01, 19.02, 19.03, 19.05, 19.06, 19.10, 19.11, 20.03, 20.03.1 (PyTorch, Triton), 22.03, 23.03, 23.04 and
# 23.06 (Triton), and 6.0 again in Triton's notes for 23.07 to 24.02, 24.06, 24.08 and 24.10; 7.5 and later (Turing)
# in Triton's notes for 25.03, 25.06 and 25.08. A release outside the rows is not told.
# Each row: (first release, last release, the lowest compute capability, its architecture, the notes).
NGC_CAPABILITY_FLOOR: tuple[tuple[str, str, str, str, str], ...] = (
    ("19.01", "24.10", "6.0", "Pascal", _NOTES + "triton-inference-server/release-notes/rel_20-03-1.html"),
    ("25.03", "25.08", "7.5", "Turing", _NOTES + "triton-inference-server/release-notes/rel-25-03.html"),
)


def ngc_capability_floor(release: str) -> tuple[str, str, str] | None:
    """(the lowest compute capability, its architecture, the release notes) an NGC release supports
    (NGC_CAPABILITY_FLOOR); None for a release no row holds."""
    return next(((floor, arch, source) for first, last, floor, arch, source in NGC_CAPABILITY_FLOOR
                 if release and first <= release <= last), None)


# An image built for one L4T release of Jetson: jetson-containers' tags end in it (`dustynv/vllm:0.6.3-r36.4.0`), NVIDIA's
# L4T images start with it (`nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3`); https://github.com/dusty-nv/jetson-containers.
_L4T_IMAGE = re.compile(r"^(?:[\w.-]+/)?(?:dustynv/[\w.-]+:(?:.*-)?r|(?:nvcr\.io/)?nvidia/l4t-[\w.-]+:r)(\d{2}\.\d+(?:\.\d+)?)\b")


def l4t_image_release(image: str) -> str:
    """The L4T release an image for Jetson is built for (_L4T_IMAGE: `36.4.0`); "" for any other image."""
    m = _L4T_IMAGE.match(image.strip().lower())
    return m.group(1) if m else ""


def engine_image_cuda(image: str) -> tuple[str, str] | None:
    """(engine, CUDA) of a serving engine's image whose tag names its CUDA (ENGINE_CUDA_IMAGE: `-cu130` is `13.0`)."""
    e = ENGINE_CUDA_IMAGE.match(image.strip().lower())
    return (e.group(1) or e.group(2), f"{int(e.group(3))}.{e.group(4)}") if e else None


def image_cuda(image: str) -> str:
    """The CUDA runtime a CUDA image's tag names (`11.0`, a CUDA sample's `vectoradd-cuda10.2`), PyTorch's image's
    torch CUDA (`pytorch/pytorch:2.0.0-cuda11.7-cudnn8-runtime`: `11.7`), RAPIDS' image's CUDA
    (`rapidsai/rapidsai:21.10-cuda11.0-runtime-centos7-py3.7`: `11.0`), an engine image's CUDA suffix
    (engine_image_cuda), or that of the release a Text Generation (or Embeddings) Inference image's tag names
    (tgi_image_cuda: `text-embeddings-inference:86-1.5` is `12.2`) or an
    NGC framework image's tag names (ngc_image_cuda), else torch's wheel label in any image's tag (_WHEEL_LABEL_IMAGE:
    `cu124` is `12.4`); "" for any other image or tag."""
    if torch := _PYTORCH_IMAGE.match(image.strip().lower()) or _RAPIDS_IMAGE.match(image.strip().lower()):
        return torch.group(1)
    label = _WHEEL_LABEL_IMAGE.match(image.strip().lower())
    return (nvidia_image_cuda(image) or (engine[1] if (engine := engine_image_cuda(image)) else "")
            or tgi_image_cuda(image) or ngc_image_cuda(image)
            or (f"{int(label.group(1))}.{label.group(2)}" if label else ""))


# NVIDIA's CUDA images check the host driver at start through NVIDIA_REQUIRE_CUDA (`cuda>=11.8` and the exceptions after
# it, `brand=tesla,driver>=470,driver<471 ...`), which the container toolkit enforces: per image CUDA, the driver
# branches its exceptions let through for every brand (tesla, unknown, nvidia, nvidiartx, geforce, geforcertx, quadro,
# quadrortx, titan, titanrtx): CUDA 11.8's list names R470 for each (gitlab.com/nvidia/container-images/cuda,
# dist/11.8.0). Text Generation Inference's images to v1.1.1 are built FROM nvidia/cuda:11.8.0 and keep it (corpus 247).
REQUIRE_CUDA_EVERY_BRAND = {"11.8": (470,)}
# Per image CUDA, every driver branch an exception of NVIDIA's CUDA image names for some brand, across the dist's
# revisions: CUDA 11.8's name R418 and R450 for tesla, R470, R510 and R515 (gitlab.com/nvidia/container-images/cuda,
# dist/11.8.0). A driver of another branch whose CUDA is older than the image's fails the requirement on any GPU.
REQUIRE_CUDA_SOME_BRAND = {"11.8": (418, 450, 470, 510, 515)}
# NVIDIA's NGC framework images require only `cuda>=9.0` (NVIDIA_REQUIRE_CUDA, whatever their own CUDA), and leave the
# driver check to their entrypoint: Triton 23.12's environment (vllm-project/vllm#2747's report), a Triton build of
# 23.10 (triton-inference-server/server#6612), NVIDIA_PYTORCH_VERSION=20.06's, and the layers of an NGC 21.08 base
# (NVIDIA/TensorRT-LLM#19345). The lowest driver branch that meets it is R384, CUDA 9.0's.
NGC_REQUIRE_BRANCH = 384
# The first NGC release whose entrypoint is seen running a newer CUDA 11 minor on an older 11.x driver (`will be run in
# Minor Version Compatibility mode`: 22.04 on R495, corpus 1864; 22.12 on R510, corpus 2086). An earlier one is not
# told: 21.10's SDK image on R455 found no CUDA device, and Triton's maintainer asked for a driver of R470 or later
# (triton-inference-server/server#3773).
NGC_MINOR_COMPAT_FROM = "22.04"


def requirement_lets_through(image: str, cuda: str, branch: int) -> bool:
    """Whether NVIDIA's CUDA image `image` (or TGI's, built on one) of CUDA `cuda` lets driver branch `branch` through
    its start-up requirement on a GPU of any brand (REQUIRE_CUDA_EVERY_BRAND). An NGC framework image of a release
    NGC_RELEASE_CUDA holds, from NGC_MINOR_COMPAT_FROM on, lets through every branch from NGC_REQUIRE_BRANCH.

    >>> requirement_lets_through("nvcr.io/nvidia/tritonserver:22.09-py3", "11.8", 515)
    True
    >>> requirement_lets_through("nvcr.io/nvidia/tritonserver:21.10-py3", "11.4", 455)
    False
    """
    if ngc_image_cuda(image) == cuda:
        return ngc_image_release(image) >= NGC_MINOR_COMPAT_FROM and branch >= NGC_REQUIRE_BRANCH
    return branch in REQUIRE_CUDA_EVERY_BRAND.get(cuda, ()) and bool(nvidia_image_cuda(image) or tgi_image_cuda(image))


def requirement_refuses(image: str, cuda: str, branch: int) -> bool:
    """Whether NVIDIA's CUDA image `image` (or TGI's, built on one) of CUDA `cuda` refuses driver branch `branch` at
    start on a GPU of any brand: no exception of its requirement names the branch (REQUIRE_CUDA_SOME_BRAND). The
    caller has found the driver's CUDA older than the image's."""
    return cuda in REQUIRE_CUDA_SOME_BRAND and branch not in REQUIRE_CUDA_SOME_BRAND[cuda] \
        and bool(nvidia_image_cuda(image) or tgi_image_cuda(image))


def nvidia_image_cuda(image: str) -> str:
    """The CUDA runtime the tag of one of NVIDIA's CUDA images names (`nvidia/cuda:11.0.3-base`: `11.0`; a CUDA sample
    image's `vectoradd-cuda10.2`: `10.2`); "" for any other image."""
    m = _CUDA_IMAGE.match(image.strip().lower()) or _CUDA_SAMPLE_IMAGE.match(image.strip().lower())
    return m.group(1) if m else ""
# TensorRT Inference Server (TRTIS) is Triton's name before 20.03: its image `nvcr.io/nvidia/tensorrtserver`, its
# program `trtserver` (triton-inference-server/server#4655, #135).
_SERVING = re.compile(r"vllm|sglang|tensorrt[-_]?llm|trtllm|tritonserver|tensorrtserver|trtserver|lmdeploy|"
                      r"text-generation-inference",
                      re.IGNORECASE)
# Programs that check or probe a GPU and exit, or wait (NVIDIA's and the CUDA samples' test tools,
# shell builtins): a container whose command runs only these runs no engine, NCCL or worker pool.
# nvidia-smi: https://docs.nvidia.com/deploy/nvidia-smi/; deviceQuery, bandwidthTest, p2pBandwidthLatencyTest, nbody
# (one process, `-benchmark`; NVIDIA's k8s/cuda-sample:nbody image): https://github.com/NVIDIA/cuda-samples; gpu-burn (one stress process per GPU, no shared memory):
# https://github.com/wilicc/gpu-burn; nvcc --version; sleep, true, echo, env, ls, cat, nvidia-container-cli info.
DIAGNOSTIC_PROGRAMS = frozenset({
    "nvidia-smi", "nvcc", "deviceQuery", "deviceQueryDrv", "bandwidthTest", "p2pBandwidthLatencyTest",
    "simpleP2P", "vectorAdd", "nbody", "gpu_burn", "gpu-burn", "nvidia-container-cli", "sleep", "true", "echo", "env",
    "ls", "cat", "printenv", "nproc", "lspci", "ldconfig", "df", "free", "uname", "hostname",
    # Filters a check's output is piped through (`nvidia-smi --query-gpu=compute_cap --format=csv | tail -n 1`).
    "head", "tail", "grep", "cut", "sort", "uniq", "wc", "tr",
    # Docker's own test image: it prints a greeting and exits (hub.docker.com/_/hello-world).
    "hello-world",
})
# Commands that only hold a container open for `docker exec` (`sleep 8640000`, `sleep 10d`, `tail -f /dev/null`), and
# a shell's endless loop of sleeps, of any length (`while true; do sleep 10;done`, corpus 2424).
_KEEP_ALIVE = re.compile(r"(?:/\S*/)?(?:sleep (?:\d{4,}[smhd]?|\d+[hd]|inf(?:inity)?)|tail -f /dev/null)"
                         r"|while\s+(?:true|:)\s*;\s*do\s+sleep\s+\d{1,9}(?:\.\d{1,3})?[smhd]?\s*;\s*done")
# Bare OS images (and CUDA's base flavour): no Python, no engine; run without a command, they start a shell.
# A GPU container of one with no command shown runs what a user types in that shell, a GPU check as pasted, never
# a serving engine without installing one first (pytorch#184277: `docker run -it --gpus=all ubuntu:22.04`).
BASE_OS_IMAGES = re.compile(r"^(?:docker\.io/)?(?:library/)?(?:ubuntu|debian|centos|rockylinux|almalinux|fedora|alpine"
                            r"|busybox|amazonlinux|opensuse/leap|nvidia/cuda:[\w.-]*-base-[\w.-]*)(?::[\w.-]+)?$")
# What CUDA takes as the start of a CUDA_VISIBLE_DEVICES entry: digits (parsed as strtoul does) or a UUID's prefix.
_CUDA_ENTRY_START = re.compile(r"\d|(?:GPU|MIG)-", re.IGNORECASE)
# A program's `--device` value that names CUDA (`cuda`, `cuda:0`).
_CUDA_FLAG = re.compile(r"cuda(?::\d{1,3})?")
_SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/sh"})


@dataclass(frozen=True)
class Ulimit:
    name: str
    soft: int  # -1: unlimited (Docker's notation)
    hard: int


@dataclass(frozen=True)
class DeviceRequest:
    driver: str
    count: int  # -1: all
    device_ids: tuple[str, ...]
    capabilities: tuple[tuple[str, ...], ...]
    # The request names a count of zero GPUs (`docker run --gpus 0`, `--gpus count=0`): Docker's CLI reads a bare
    # number as a count, not a GPU's index, so it asks the NVIDIA runtime for no device of its own and the image's
    # NVIDIA_VISIBLE_DEVICES (`all` in CUDA images) decides what the container gets (NVIDIA/nvidia-docker#1506).
    zero_count: bool = False

    @property
    def is_gpu(self) -> bool:
        return (self.driver in ("nvidia", "cdi")
                or any("gpu" in caps for caps in self.capabilities)
                or any(d.startswith("nvidia.com/gpu") for d in self.device_ids))


# What may start more ranks than a command's size flags show: a config file (`--config`, TensorRT-LLM's
# `--extra_llm_api_options`), Ray, MPI or torchrun, Triton's TensorRT-LLM launcher; and, in an argv word that is a
# whole shell line (`sh -c "vllm serve ... -tp 2"`), any size flag.
_MORE_RANKS = re.compile(r"--config\b|llm_api_options|\bray\b|mpirun|mpiexec|torchrun|world_size|launch_triton_server|"
                         r"--nnodes", re.IGNORECASE)
# vLLM's own image, whose entrypoint is `vllm serve` with no arguments of its own: run with none, it serves its default
# model at its default sizes (hub.docker.com/r/vllm/vllm-openai). Another image run with no command runs its own.
_VLLM_IMAGE = re.compile(r"^(?:[\w.:-]+/)?vllm/vllm-openai(?:[:@].*)?$", re.IGNORECASE)
_SIZE_IN_SHELL = re.compile(r"parallel|shard|(?:^|\s)--?(?:tp|pp|dp)(?:[-_]size)?\b", re.IGNORECASE)


# A command started as one rank of a multi-container or multi-node group (a Ray worker, a node rank, a headless DP rank).
_DISTRIBUTED = re.compile(r"\bray start\b.*--address|--node-rank|--headless\b|--data-parallel-address")


def one_rank_engine(image: str, argv: tuple[str, ...]) -> str:
    """The engine a whole command runs as one rank, by name ("vLLM", "Triton"); "" where it names neither or may run
    more (a size flag, a config file, Ray, MPI, a shell line the argv does not split).

    vLLM's TP, PP and DP default to 1 (`vllm serve --help`), so a command that sets none runs one engine core with
    its model on one GPU, reached from the API server over ZMQ sockets; its shared-memory broadcast queue and NCCL
    come with TP or PP > 1 (vllm/v1/executor: the one-process executor at world size 1). Triton serves every model
    instance from its one server process; a TensorRT-LLM backend runs ranks over MPI (its images and
    `launch_triton_server.py --world_size` are left out). TGI shards over every GPU it sees unless told
    (`--num-shard`), SGLang and TensorRT-LLM are not read here."""
    text = " ".join((image, *argv))
    joined = " ".join(argv)
    if any(n not in (None, 1) for n in sizes_from_argv(argv)) or sizes_unread(argv) or _DISTRIBUTED.search(joined) \
            or _MORE_RANKS.search(joined) or any(_SIZE_IN_SHELL.search(a) for a in argv if " " in a.strip()):
        return ""
    if engine_of(text) == "vllm" and not re.search(r"trtllm|tensorrt", text, re.IGNORECASE) \
            and (argv or _VLLM_IMAGE.match(image)):
        return "vLLM"
    if re.search(r"\b(?:tritonserver|trtserver)\b", joined) and not engine_of(text):
        return "Triton"
    return ""


# `ray start --address=127.0.0.1:6379` (or localhost): a worker on its head's own host.
_RAY_LOOPBACK = re.compile(r"\bray start\b.*--address[= ]['\"]?(?:127\.\d+\.\d+\.\d+|localhost)\b")


@dataclass(frozen=True)
class DockerContainer:
    id: str
    name: str
    image: str = ""
    running: bool = True
    argv: tuple[str, ...] = ()  # Path + Args (secrets redacted)
    env: tuple[tuple[str, str], ...] = ()  # Config.Env (secrets redacted)
    shm_size: int | None = None  # HostConfig.ShmSize, bytes
    ipc_mode: str = ""
    ulimits: tuple[Ulimit, ...] = ()
    cap_add: tuple[str, ...] = ()
    cap_drop: tuple[str, ...] = ()
    security_opt: tuple[str, ...] = ()
    privileged: bool = False
    device_requests: tuple[DeviceRequest, ...] = ()
    devices: tuple[str, ...] = ()  # HostConfig.Devices PathOnHost
    cpuset_cpus: str = ""
    nano_cpus: int = 0
    cpu_quota: int = 0
    cpu_period: int = 0
    memory: int = 0
    runtime: str = ""
    pid_mode: str = ""
    network_mode: str = ""
    # Where it was read: "" (a whole `docker inspect`), or a pasted spec (facts/container_specs.py:
    # "docker run", "compose", "kubernetes", "docker inspect excerpt").
    origin: str = ""
    # A cut spec or excerpt: a field it does not show (None, empty) is unknown, not Docker's default.
    excerpt: bool = False
    # A cut spec or excerpt that still shows the engine's command and arguments to their end, so its argv is the
    # engine's flags: a compose service with a key below its `command:` (and `entrypoint:`), the cut falling after the
    # command (corpus 1006: `labels:` left empty below it); a pod spec's `containers:` list pasted without the pod
    # around it, each container's `command:` and `args:` lists to their end (corpus 1405).
    command_whole: bool = False
    # A pod spec's piece that still shows each container's resources to their end, so a GPU limit it does not show is
    # none: a `kubectl describe pod` the paste cuts after its Containers section (corpus 2189: cut inside its Volumes;
    # facts/container_specs.K8S_DESCRIBED_CONTAINERS_MARK).
    resources_whole: bool = False
    # The host's /dev/shm mounted at /dev/shm (a bind mount, a Kubernetes hostPath): its size is the host's.
    host_shm: bool = False
    # The spec shows every variable it sets (the image's own ENV is not in a spec): a pod spec's env list from its
    # `env:` key to its end; a whole compose service whose env files, if it names any, are pasted beside it; a
    # `docker run` without `--env-file`.
    env_whole: bool = False
    # A `docker inspect` excerpt that shows the container's DeviceRequests list to its closing `]` (a projection of
    # that key, `docker inspect ollama | jq '.[0].HostConfig.DeviceRequests'`, corpus 2130): its GPU requests are all
    # there, whatever else of its spec is left out.
    requests_whole: bool = False
    # A Kubernetes pod its status shows the scheduler has not placed (PodScheduled False, or Pending with no node): its
    # containers have not started and hold no GPU yet.
    unscheduled: bool = False
    # A pod container's GPU-sharing resources (GPU_SHARE_RESOURCES) as its limits write them: (name, value).
    gpu_shares: tuple[tuple[str, str], ...] = ()
    # A pod container's RDMA device resources as its limits write them (`rdma/rdma_shared_device_a: 1`: the RDMA device
    # plugin's resource prefix, facts/container_specs.K8S_RDMA_RESOURCE): it asks for an RDMA NIC for its traffic.
    rdma_requested: tuple[str, ...] = ()
    # A pasted `docker run` of nvidia-smi whose output the paste shows below it and which names no GPU (cut before its
    # first GPU row, or a failure line in its place): the probe's own result does not show the GPUs reached it
    # (corpus 1527, 1536).
    probe_lists_no_gpu: bool = False
    # The ports a pasted `docker run` publishes, as written (`-p 8001:8000`, `--publish 127.0.0.1:8000:8000/tcp`).
    published: tuple[str, ...] = ()

    @property
    def published_ports(self) -> tuple[tuple[str, str], ...]:
        """(host port, container port) of each port it publishes (`published`); the host's "" where Docker picks it
        (`-p 8000`)."""
        pairs: list[tuple[str, str]] = []
        for value in self.published:
            parts = value.rpartition("/")[0].split(":") if "/" in value else value.split(":")
            if parts[-1].isdecimal():
                pairs.append((parts[-2] if len(parts) > 1 and parts[-2].isdecimal() else "", parts[-1]))
        return tuple(pairs)

    @property
    def gpu_slice(self) -> tuple[tuple[str, str], ...]:
        """The GPU-sharing resources that give it less than a whole GPU (a memory amount, a percent below 100): each
        GPU it gets is shared with other pods. A value at the whole GPU's is no slice."""
        return tuple((k, v) for k, v in self.gpu_shares if GPU_SHARE_RESOURCES.get(k, "") != v.strip().strip("'\""))

    @property
    def parallel_world(self) -> int | None:
        """TP x PP its command sets (`--tensor-parallel-size=2`); None where it sets neither. A piece of a spec that
        shows only its args shows an engine's command by these flags."""
        tp, pp, _ = sizes_from_argv(self.argv)
        return None if tp is None and pp is None else (tp or 1) * (pp or 1)

    @property
    def label(self) -> str:
        return self.name or self.id[:12] or "(a container the excerpt does not name)"

    @property
    def shm_bytes(self) -> int | None:
        """The /dev/shm size it gets; None when it shares another IPC namespace or the host's /dev/shm."""
        if self.ipc_mode == "host" or self.ipc_mode.startswith("container:") or self.host_shm:
            return None
        return self.shm_size or DOCKER_DEFAULT_SHM

    @property
    def shm_unshown(self) -> bool:
        """A cut spec that shows neither its shm size nor its IPC mode: its /dev/shm is unknown, not Docker's default."""
        return self.excerpt and self.shm_size is None and not self.ipc_mode

    def env_value(self, name: str) -> str | None:
        for key, value in self.env:
            if key == name:
                return value
        return None

    def ulimit(self, name: str) -> Ulimit | None:
        return next((u for u in self.ulimits if u.name == name), None)

    @property
    def cap_sys_nice(self) -> bool:
        caps = {c.upper().removeprefix("CAP_") for c in self.cap_add}
        return self.privileged or "SYS_NICE" in caps or "ALL" in caps

    @property
    def cap_ipc_lock(self) -> bool:
        """It holds CAP_IPC_LOCK (`--cap-add IPC_LOCK`, a pod's `securityContext.capabilities.add`, ALL, or
        `--privileged`): the kernel lets it lock and pin memory past RLIMIT_MEMLOCK (mlock, and RDMA registration:
        ib_umem_get pins beyond the limit where `capable(CAP_IPC_LOCK)`)."""
        caps = {c.upper().removeprefix("CAP_") for c in self.cap_add}
        return self.privileged or "IPC_LOCK" in caps or "ALL" in caps

    @property
    def seccomp_unconfined(self) -> bool:
        return self.privileged or any(re.fullmatch(r"seccomp[=:]unconfined", o) for o in self.security_opt)

    @property
    def gpu_requested(self) -> bool:
        """GPUs asked for: --gpus / CDI device request, the nvidia runtime, or /dev/nvidia devices."""
        if any(r.is_gpu for r in self.device_requests):
            return True
        if any(d.startswith("/dev/nvidia") or d.startswith("nvidia.com/gpu") for d in self.devices):
            return True
        visible = self.env_value("NVIDIA_VISIBLE_DEVICES")
        if visible is None and self.runtime == "nvidia" and _GPU_ENV_IMAGE.match(self.image):
            return True  # the image's own ENV NVIDIA_VISIBLE_DEVICES=all (CUDA base images and NGC's built on them)
        return self.runtime == "nvidia" and visible not in (None, "", "void", "none")

    @property
    def gpus_by_env(self) -> bool:
        """A whole pasted spec with no GPU request whose environment names GPUs (`--env NVIDIA_VISIBLE_DEVICES=0,1`):
        the nvidia-docker 2 way, which hands them over where nvidia is Docker's default runtime. A GPU container by
        intent; whether the GPUs reached it is not shown (an excerpt's is `DockerContainers.gpu_env_only`)."""
        return bool(self.origin) and not self.excerpt and not self.gpu_requested \
            and self.env_value("NVIDIA_VISIBLE_DEVICES") not in (None, "", "void", "none")

    @property
    def cuda_asked(self) -> str:
        """What in a whole pasted spec tells its program to run on CUDA: its command's `--device cuda` (`cuda:N`,
        infinity's, sentence-transformers servers' flag) or a CUDA_VISIBLE_DEVICES of GPU indices or UUIDs
        (facts/_parse.CUDA_DEVICE) in its environment; "" where neither does, or the spec is an excerpt. A GPU container by
        intent (corpus 2677: `--device cuda` and `CUDA_VISIBLE_DEVICES='2'`)."""
        if not self.origin or self.excerpt:
            return ""
        device = (self.flag("--device") or "").strip("'\"")
        if _CUDA_FLAG.fullmatch(device):
            return f"--device {device}"
        devices = cuda_visible_devices(self.env_value("CUDA_VISIBLE_DEVICES"))
        return f"CUDA_VISIBLE_DEVICES={','.join(devices)}" if devices else ""

    @property
    def cuda_visible_none(self) -> str:
        """CUDA_VISIBLE_DEVICES in its environment where its first entry is none CUDA can parse (not an index, a
        GPU or MIG UUID, nor a variable the shell or compose would fill), so CUDA enumerates no device at all:
        CUDA reads the variable as a comma-separated list of indices or UUIDs and keeps only the devices before the
        first invalid entry (cuda-c-programming-guide, "CUDA Environment Variables"), so `all` (NVIDIA_VISIBLE_DEVICES'
        word, not CUDA's) leaves none (corpus 2655). "" where it is unset, empty, or starts with a device or `-`
        (`-1` hides the GPUs on purpose)."""
        value = (self.env_value("CUDA_VISIBLE_DEVICES") or "").strip().strip("'\"")
        first = value.split(",")[0].strip()
        if not first or "$" in value or first.startswith("-") or _CUDA_ENTRY_START.match(first):
            return ""
        return value

    @property
    def zero_gpus_asked(self) -> bool:
        """Its GPU request is a count of zero (`--gpus 0`: DeviceRequest.zero_count), with no
        NVIDIA_VISIBLE_DEVICES of its own that would name the GPUs instead."""
        return any(r.is_gpu and r.zero_count for r in self.device_requests) \
            and self.env_value("NVIDIA_VISIBLE_DEVICES") is None

    @property
    def image_hidden(self) -> bool:
        """Its image is a placeholder the user typed in its place (`docker run ... -d  <image>`, corpus 2591): what it
        runs, its entrypoint and its CUDA are not shown."""
        return self.image.startswith("<") and self.image.endswith(">")

    @property
    def rocm_build(self) -> bool:
        """Its image is a ROCm (AMD) build by its name (ROCM_IMAGE: ollama's `:0.4.0-rc5-rocm`, corpus 828;
        `rocm/vllm`): its programs carry HIP code for AMD GPUs, none for NVIDIA's."""
        return bool(ROCM_IMAGE.search(self.image))

    @property
    def image_sees_every_gpu(self) -> bool:
        """Its image's own environment sets NVIDIA_VISIBLE_DEVICES=all (_GPU_ENV_IMAGE: CUDA base and NGC images)."""
        return bool(_GPU_ENV_IMAGE.match(self.image))

    @property
    def gpu_count(self) -> int | None:
        """GPUs requested; None when "all" or not stated."""
        for req in self.device_requests:
            if req.is_gpu:
                if req.device_ids and not any(d.endswith("=all") for d in req.device_ids):
                    return len(req.device_ids)
                return None if req.count < 0 else (req.count or None)
        # Device nodes, or CDI names of single GPUs (`--device nvidia.com/gpu=0`; `=all` does not count them).
        nodes = [d for d in self.devices if re.fullmatch(r"/dev/nvidia\d+|nvidia\.com/gpu=(?!all$)\S+", d)]
        if nodes and not any(d == "nvidia.com/gpu=all" for d in self.devices):
            return len(nodes)
        visible = self.env_value("NVIDIA_VISIBLE_DEVICES")
        if self.runtime == "nvidia" and visible and visible not in ("all", "void", "none"):
            return len([v for v in visible.split(",") if v.strip()])
        return None

    @property
    def every_gpu(self) -> bool:
        """Its GPU request hands it every GPU of the host (`--gpus all`, compose `count: all`), and neither
        NVIDIA_VISIBLE_DEVICES nor CUDA_VISIBLE_DEVICES in its environment narrows them."""
        request = next((r for r in self.device_requests if r.is_gpu), None)
        if request is None or not (any(d == "all" or d.endswith("=all") for d in request.device_ids)
                                   or (request.count < 0 and not request.device_ids)):
            return False
        return self.env_value("CUDA_VISIBLE_DEVICES") is None and self.env_value("NVIDIA_VISIBLE_DEVICES") in (None, "all")

    @property
    def cuda_visible_count(self) -> int | None:
        """How many GPUs CUDA_VISIBLE_DEVICES in its environment lists (CUDA enumerates no other device inside
        the container); None where it is not set, or set to a value that is not a list of GPUs."""
        devices = cuda_visible_devices(self.env_value("CUDA_VISIBLE_DEVICES"))
        return len(devices) if devices else None

    @property
    def cuda_ordinals_missing(self) -> tuple[int, ...]:
        """CUDA_VISIBLE_DEVICES's indices at or past the number of GPUs the container is given; () where none is,
        or where that number is not shown (`--gpus all`: the host's count).

        The NVIDIA runtime numbers a container's GPUs from 0 (NVIDIA_VISIBLE_DEVICES=2,3 shows them as 0 and 1),
        and CUDA stops its list at the first index with no device, so `2,3` there leaves no GPU (vllm#9865).
        UUIDs name a GPU wherever it sits; a privileged container sees every GPU of the host."""
        given = self.gpu_count
        if given is None or self.privileged:
            return ()
        entries = cuda_visible_entries(self.env_value("CUDA_VISIBLE_DEVICES"))
        return tuple(int(v) for v in entries if v.isdecimal() and int(v) >= given)

    @property
    def gpus_visible_at_most(self) -> int | None:
        """The most GPUs an engine in it can use: the fewer of its GPU request's ids or count and
        CUDA_VISIBLE_DEVICES's entries; None where neither bounds them."""
        bounds = [n for n in (self.gpu_count, self.cuda_visible_count) if n is not None]
        return min(bounds) if bounds else None

    @property
    def engine(self) -> str:
        """The engine its image or command names: sglang, vllm or trtllm; else tgi where it runs TGI's image or its
        launcher (TGI_ENGINE: the image's entrypoint is the launcher, so the arguments after the image are the
        launcher's); "" when none."""
        named = engine_of(self.image + " " + " ".join(self.argv))
        if named or not (TGI_ENGINE.match(self.image.strip().lower())
                         or any(posixpath.basename(a) == "text-generation-launcher" for a in self.argv[:1])):
            return named
        return "tgi"

    @property
    def diagnostic_only(self) -> bool:
        """Its command runs only programs of DIAGNOSTIC_PROGRAMS (`nvidia-smi`, `sh -c "sleep 30; nvidia-smi"`):
        a GPU test that exits, no engine. With no command shown, the image's own runs: an image named after
        such a program (`gpu_burn`) is one, and so is a bare OS image (BASE_OS_IMAGES: its shell, no engine)."""
        if self.looks_like_serving:
            return False
        if not self.argv:
            return (self.image.rsplit("/", 1)[-1].partition(":")[0].partition("@")[0] in DIAGNOSTIC_PROGRAMS
                    or bool(BASE_OS_IMAGES.match(self.image)))
        return diagnostic_command(self.argv)

    @property
    def keep_alive(self) -> bool:
        """Its command only holds the container open (`sleep 8640000`, `sleep infinity`, `tail -f /dev/null`, as a
        shell's `-c` script too: `/bin/sh -c "sleep 10d;"`, corpus 1980; a shell's endless loop of sleeps, corpus 2424)
        for `docker exec`: what runs on its GPUs is
        typed inside it, not a diagnostic that exits."""
        words = list(self.argv)
        if len(words) == 3 and words[0].rsplit("/", 1)[-1] in _SHELLS and re.fullmatch(r"-\w*c", words[1]):
            words = [words[2].strip().rstrip(";").strip()]
        return bool(_KEEP_ALIVE.fullmatch(" ".join(words)))

    @property
    def session(self) -> bool:
        """Its command is a bare shell (`docker run -it IMAGE bash`) or only holds it open (keep_alive): what runs in
        it is typed there (or through `docker exec`), not its command."""
        words = self.argv
        return self.keep_alive or (bool(words) and words[0] in _SHELLS
                                   and not any(re.fullmatch(r"-\w*c", w) for w in words[1:]))

    @property
    def mpi_ranks_per_host(self) -> int | None:
        """The most ranks its command's MPI launcher places on one host (processes.launcher_ranks_per_host), the
        launcher its command itself or a shell's `-c` script's command (`bash -c "cd /code && mpirun ..."`); None
        where its command starts no MPI launcher or does not count them (corpus 2389: `mpirun -np 16 -H IP1:8,IP2:8`)."""
        words = list(self.argv)
        if words and words[0] in _SHELLS:
            script = next((words[i + 1] for i, w in enumerate(words[:-1]) if re.fullmatch(r"-\w*c", w)), "")
            words = re.split(r"\s+", re.split(r"&&|;|\|\|", script)[-1].strip())
        return launcher_ranks_per_host(words)

    @property
    def looks_like_serving(self) -> bool:
        return bool(_SERVING.search(self.image) or _SERVING.search(" ".join(self.argv)))

    def flag(self, *names: str) -> str | None:
        value: str | None = None
        for i, arg in enumerate(self.argv):
            for name in names:
                if arg == name:
                    value = self.argv[i + 1] if i + 1 < len(self.argv) else ""
                elif arg.startswith(name + "="):
                    value = arg[len(name) + 1:]
        return value

    @property
    def tensor_parallel(self) -> int | None:
        """The TP size its command sets (the `parallelism` fact's vocabulary); None when it sets none."""
        return sizes_from_argv(self.argv)[0]

    @property
    def one_rank_engine(self) -> str:
        """The engine its whole command runs as one rank (`one_rank_engine`); "" where the command is cut."""
        if self.excerpt and not self.command_whole:
            return ""
        return one_rank_engine(self.image, self.argv)

    @property
    def distributed_rank(self) -> bool:
        """Started as one rank of a multi-container group (SGLang --nnodes, Ray worker, torchrun)."""
        nnodes = self.flag("--nnodes")
        if nnodes is not None and nnodes.isdecimal() and int(nnodes) > 1:
            return True
        return bool(_DISTRIBUTED.search(" ".join(self.argv)))

    @property
    def ray_head(self) -> bool:
        """Started as a Ray cluster's head (`ray start --head`)."""
        return bool(re.search(r"\bray start\b.*--head\b", " ".join(self.argv)))

    @property
    def ray_worker_on_loopback(self) -> bool:
        """A Ray worker that joins its head at a loopback address (`ray start --address=127.0.0.1:6379`, or
        localhost): it runs on its head's own host."""
        return bool(_RAY_LOOPBACK.search(" ".join(self.argv)))

    @property
    def visible_devices_by_hand(self) -> str | None:
        """NVIDIA_VISIBLE_DEVICES its Kubernetes spec sets by hand beside an nvidia.com/gpu request (the value);
        None otherwise.

        The device plugin hands the runtime the GPUs it allocated; the NVIDIA Container Toolkit also honours the
        variable in an unprivileged container (`accept-nvidia-visible-devices-envvar-when-unprivileged`, on by
        default), so a value set in the spec exposes GPUs the plugin did not allocate (NVIDIA/k8s-device-plugin#1294)."""
        if not any(r.driver == K8S_GPU_RESOURCE for r in self.device_requests):
            return None
        return self.env_value("NVIDIA_VISIBLE_DEVICES")

    @property
    def ranks_beyond_gpus(self) -> tuple[int, int] | None:
        """(TP x PP its engine's command asks for, the most GPUs it can see) where the first is larger and nothing
        shows ranks on other nodes (no --nnodes or node rank, no Ray in its command or RAY_ADDRESS); None otherwise.

        An engine places its TP x PP ranks on the GPUs CUDA enumerates; without a multi-node group it fails at
        start when they are fewer (vLLM: "The number of required GPUs exceeds the total number of available GPUs")."""
        tp, pp, _ = sizes_from_argv(self.argv)
        world = (tp or 1) * (pp or 1)
        visible = self.gpus_visible_at_most
        joined = " ".join(self.argv)
        if visible is None or world <= visible or not self.engine or self.distributed_rank \
                or self.env_value("RAY_ADDRESS") or re.search(r"\bray\b|--nnodes", joined, re.IGNORECASE):
            return None
        return world, visible

    @property
    def cpu_limit(self) -> float | None:
        if self.nano_cpus:
            return self.nano_cpus / 1e9
        if self.cpu_quota > 0 and self.cpu_period > 0:
            return self.cpu_quota / self.cpu_period
        return None

    @property
    def cpuset(self) -> tuple[int, ...] | None:
        if not self.cpuset_cpus:
            return None
        try:
            return parse_cpulist(self.cpuset_cpus)
        except ParseError:
            return None


@dataclass(frozen=True)
class DockerContainers:
    containers: tuple[DockerContainer, ...]

    @classmethod
    def union(cls, parts: list[DockerContainers]) -> DockerContainers:
        """The containers of every source, best-ranked first: a paste that shows a compose file and a `docker run`
        shows the containers of both (corpus 2655: a compose service, and a test run of nvidia-smi beside it)."""
        return cls(tuple(c for p in parts for c in p.containers))

    @property
    def gpu_or_serving(self) -> tuple[DockerContainer, ...]:
        """The containers the container checks care about: with GPUs (asked for, or named by a whole spec's
        environment: DockerContainer.gpus_by_env), or running an engine."""
        return tuple(c for c in self.containers if c.gpu_requested or c.looks_like_serving or c.gpus_by_env)

    @property
    def engines_on_one_gpu(self) -> tuple[tuple[DockerContainer, DockerContainer, str], ...]:
        """Pairs of `docker run` containers that each run an engine on a GPU the other is given too, with the GPUs
        they share in words: each is a process of its own holding memory and time slices on that GPU (corpus 2561: two
        vLLM servers, each `--gpus '"device=0"'`). Both must be up at once, not a command run again after a failure:
        two names (`--name`, not the image Docker would stand in) and two engine ports (the engine's `--port`); or a
        run cut before its image that publishes the serving run's engine port on another host port (corpus 2733)."""
        runs = [c for c in self.containers if c.origin == "docker run" and c.looks_like_serving and not c.gpu_slice
                and c.name and c.name != c.image and argv_value(c.argv, ("--port",))
                and any(r.is_gpu and not r.zero_count for r in c.device_requests)]
        pairs: list[tuple[DockerContainer, DockerContainer, str]] = []
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                if a.name == b.name or argv_value(a.argv, ("--port",)) == argv_value(b.argv, ("--port",)):
                    continue
                if (where := _gpus_shared(a, b)) is not None:
                    pairs.append((a, b, where))
        # A second run the paste cuts before its image (corpus 2733) that publishes the port a serving run's engine
        # listens on in its container, on a host port that run does not take: the same server's second instance, up
        # beside the first (Docker refuses a host port already taken; a run typed again after a failure keeps it).
        cut = [c for c in self.containers if c.origin == "docker run" and c.excerpt and not c.image
               and any(r.is_gpu and not r.zero_count for r in c.device_requests)]
        whole = [c for c in self.containers if c.origin == "docker run" and not c.excerpt and c.looks_like_serving
                 and not c.gpu_slice and any(r.is_gpu and not r.zero_count for r in c.device_requests)]
        for a in whole:
            taken = {h for h, _ in a.published_ports}
            served = {p for _, p in a.published_ports} | {argv_value(a.argv, ("--port",)) or ""}
            for b in cut:
                if any(h and h not in taken and p in served for h, p in b.published_ports) \
                        and (where := _gpus_shared(a, b)) is not None:
                    pairs.append((a, b, where))
        return tuple(pairs)

    @property
    def gpu_env_only(self) -> tuple[DockerContainer, ...]:
        """Excerpts not in gpu_or_serving whose environment names GPUs (NVIDIA_VISIBLE_DEVICES) where the runtime and
        GPU request are cut away: GPU containers by intent, whether the GPUs reached them not shown."""
        return tuple(c for c in self.containers if c.excerpt and not c.runtime and not c.device_requests
                     and c.env_value("NVIDIA_VISIBLE_DEVICES") not in (None, "", "void", "none")
                     and c not in self.gpu_or_serving)

    @property
    def none_given_gpus(self) -> bool:
        """Every container shown is a whole pasted `docker run` or compose service that asks for no GPU (no --gpus,
        CDI device, /dev/nvidia* device or NVIDIA_VISIBLE_DEVICES of its own) and names no runtime but runc.
        Under Docker's own runc no driver library is mounted there, and cudart then reports error 35, "CUDA driver version is
        insufficient for CUDA runtime version" (triton-inference-server/server#6325, #1203, #2674).
        Whether the daemon's default runtime is nvidia's is not shown in a spec.
        A Kubernetes spec is not counted: the device plugin, not the spec alone, decides what its pod gets."""
        return bool(self.containers) and all(
            c.origin in _NO_GPU_BY_DEFAULT and not c.excerpt and c.runtime in ("", "runc") and not c.gpu_requested
            and not c.gpus_by_env for c in self.containers)

    @property
    def own_spec(self) -> DockerContainer | None:
        """The container a paste shows from inside, where exactly one whole `docker run` / compose / pod spec
        was pasted with it (its flags are this container's)."""
        specs = [c for c in self.containers if c.origin and not c.excerpt]
        return specs[0] if len(specs) == 1 and len(self.containers) == 1 else None

    def shm_inside(self, shm: ShmInfo | None) -> ShmInfo | None:
        """/dev/shm seen from inside the container: the size read there, else the one its own spec gives it."""
        spec = self.own_spec
        if (shm is not None and shm.size_bytes is not None) or spec is None or spec.shm_bytes is None:
            return shm
        return ShmInfo(spec.shm_bytes, sources=(f"{spec.origin} {spec.label}",),
                       evidence=(f"{spec.origin} {spec.label}: shm size "
                                 f"{'not set (Docker default 64 MiB)' if spec.shm_size is None else spec.shm_size}"
                                 f", IPC mode {spec.ipc_mode or 'private'}",))


def diagnostic_command(argv: tuple[str, ...]) -> bool:
    """Whether an argv runs only DIAGNOSTIC_PROGRAMS, directly or as a shell's `-c` script (commands split at
    `;`, `&&`, `||`, `|` and newlines); a bare shell, another program or an unreadable script is not."""
    words = list(argv)
    if words and words[0] in _SHELLS:
        script = next((words[i + 1] for i, w in enumerate(words[:-1]) if re.fullmatch(r"-\w*c", w)), None)
        if script is None:
            return False
        words = [script]
    commands = [c.split() for c in re.split(r"\s*(?:;|&&|\|\||\||\n)\s*", " ".join(words)) if c.strip()]
    return bool(commands) and all(c[0].rsplit("/", 1)[-1] in DIAGNOSTIC_PROGRAMS for c in commands)


def _gpus_shared(a: DockerContainer, b: DockerContainer) -> str | None:
    """The GPUs two containers are both given, in words ("every GPU", "GPU 0, GPU 1"); None where they share none."""
    ga, gb = _gpus_given(a), _gpus_given(b)
    both = ga & gb if ga is not None and gb is not None else ga if gb is None else gb
    if both is not None and not both:
        return None
    return "every GPU" if both is None else ", ".join(f"GPU {g}" for g in sorted(both))


def _gpus_given(c: DockerContainer) -> set[str] | None:
    """The GPUs (indices or UUIDs) a container's device requests name, a count's from GPU 0 up (`--gpus 2`: 0 and 1,
    as the NVIDIA runtime fills it); None for every GPU (`--gpus all`)."""
    gpu = [r for r in c.device_requests if r.is_gpu]
    if any(r.count < 0 for r in gpu):
        return None
    return {d for r in gpu for d in r.device_ids} | {str(i) for r in gpu if not r.device_ids for i in range(r.count)}


def runs_own_program(argv: tuple[str, ...]) -> bool:
    """Whether a container's argv runs a program of its image's or its own: its entrypoint (no argv, or arguments to
    it), a program named; not a bare shell (an interactive session runs what the user types, corpus 229) nor
    diagnostics only (diagnostic_command)."""
    words = list(argv)
    if words and words[0] in _SHELLS and not any(re.fullmatch(r"-\w*c", w) for w in words[1:]):
        return False
    return not diagnostic_command(argv)


SHM_PATH = "/dev/shm"


def binds_host_shm(source: str, target: str) -> bool:
    """A mount of the host's /dev/shm at the container's /dev/shm (`-v /dev/shm:/dev/shm`, a compose or
    Kubernetes hostPath volume): the container then shares the host's tmpfs, whatever its ShmSize says."""
    return source.rstrip("/") == SHM_PATH and target.rstrip("/") == SHM_PATH


def volume_binds_host_shm(spec: str) -> bool:
    """A short volume spec (`/dev/shm:/dev/shm[:ro,z]`) that binds the host's /dev/shm at /dev/shm."""
    source, _, rest = spec.partition(":")
    return binds_host_shm(source, rest.partition(":")[0])


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def json_brackets(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, bracket) of every `[ ] { }` outside JSON strings, from `start`; the last item is
    (len(text), "\"") when the text ends inside a string."""
    in_str = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[]{}":
            yield i, ch
    if in_str:
        yield len(text), '"'


def extract_json_array(text: str) -> str:
    """The JSON array in a text (first `[` at a line start to its matching `]`)."""
    m = re.search(r"^\s*\[", text, re.MULTILINE)
    if not m:
        raise ParseError("no JSON array in the text")
    start = text.index("[", m.start())
    depth = 0
    for i, ch in json_brackets(text, start):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    raise ParseError("the JSON array is cut off")


def parse_docker_inspect(text: str) -> tuple[DockerContainer, ...]:
    """Parse `docker inspect` output (a JSON array of container objects)."""
    try:
        data = load_json(text, "docker inspect")
    except ValueError:
        try:
            data = load_json(extract_json_array(text), "docker inspect")
        except ValueError as exc:
            raise ParseError(f"not docker inspect JSON: {exc}") from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise ParseError("docker inspect output is not a JSON array")
    containers = []
    for obj in data:
        if not isinstance(obj, dict) or not isinstance(obj.get("HostConfig"), dict):
            raise ParseError("not a container object (no HostConfig); an image inspect?")
        host: dict[str, Any] = obj["HostConfig"]
        config: dict[str, Any] = obj["Config"] if isinstance(obj.get("Config"), dict) else {}
        state: dict[str, Any] = obj["State"] if isinstance(obj.get("State"), dict) else {}
        ulimits = tuple(
            Ulimit(str(u.get("Name", "")), _int(u.get("Soft")), _int(u.get("Hard")))
            for u in host.get("Ulimits") or [] if isinstance(u, dict)
        )
        requests = tuple(
            DeviceRequest(
                str(r.get("Driver") or ""),
                _int(r.get("Count")),
                _strs(r.get("DeviceIDs")),
                tuple(_strs(c) for c in r.get("Capabilities") or [] if isinstance(c, list)),
            )
            for r in host.get("DeviceRequests") or [] if isinstance(r, dict)
        )
        devices = tuple(str(d.get("PathOnHost", "")) for d in host.get("Devices") or [] if isinstance(d, dict))
        env = []
        for entry in _strs(config.get("Env")):
            key, _, value = entry.partition("=")
            env.append((key, value))
        argv = (str(obj.get("Path") or ""), *_strs(obj.get("Args")))
        containers.append(DockerContainer(
            id=str(obj.get("Id", "")),
            name=str(obj.get("Name", "")).lstrip("/"),
            image=str(config.get("Image") or obj.get("Image") or ""),
            running=bool(state.get("Running", True)),
            argv=tuple(a for a in argv if a),
            env=tuple(env),
            shm_size=_int(host.get("ShmSize")) or None,
            ipc_mode=str(host.get("IpcMode") or ""),
            ulimits=ulimits,
            cap_add=_strs(host.get("CapAdd")),
            cap_drop=_strs(host.get("CapDrop")),
            security_opt=_strs(host.get("SecurityOpt")),
            privileged=bool(host.get("Privileged", False)),
            device_requests=requests,
            devices=devices,
            cpuset_cpus=str(host.get("CpusetCpus") or ""),
            nano_cpus=_int(host.get("NanoCpus")),
            cpu_quota=_int(host.get("CpuQuota")),
            cpu_period=_int(host.get("CpuPeriod")),
            memory=_int(host.get("Memory")),
            runtime=str(host.get("Runtime") or ""),
            pid_mode=str(host.get("PidMode") or ""),
            network_mode=str(host.get("NetworkMode") or ""),
            host_shm=any(volume_binds_host_shm(b) for b in _strs(host.get("Binds"))) or any(
                isinstance(m, dict) and binds_host_shm(str(m.get("Source", "")), str(m.get("Destination", "")))
                for m in (obj["Mounts"] if isinstance(obj.get("Mounts"), list) else ())),
        ))
    return tuple(containers)


fact("docker_containers", DockerContainers, union, hint=DOCKER_INSPECT.hint)


@provider("docker_containers", DockerContainers, rank=10, title=DOCKER_PS_SOURCE.title, hint=DOCKER_PS_SOURCE.hint)
def docker_containers(ctx: FactContext) -> DockerContainers:
    """Running Docker containers and their HostConfig (`docker ps -q`, `docker inspect`)."""
    host = ctx.host
    if host.which("docker") is None:
        raise FactUnavailable("the docker CLI is not installed here (not a Docker host)")
    ps = host.run(list(DOCKER_PS))
    if ps.not_found:
        raise FactUnavailable("the docker CLI is not installed here (not a Docker host)")
    if not ps.ok:
        err = (ps.stderr or ps.stdout).strip()
        hint = "run as root or as a member of the docker group" if "permission denied" in err.lower() else ""
        raise FactUnavailable(f"`docker ps` failed: {err[:200] or ps.returncode}", hint)
    ids = [line.strip() for line in ps.stdout.splitlines() if re.fullmatch(r"[0-9a-f]{6,64}", line.strip())]
    if not ids:
        return DockerContainers(())
    result = host.run(["docker", "inspect", *ids], timeout=INSPECT_TIMEOUT_S)
    if not result.ok:
        raise FactUnavailable(f"`docker inspect` failed: {(result.stderr or '').strip()[:200] or result.returncode}")
    try:
        return DockerContainers(parse_docker_inspect(result.stdout))
    except ParseError as exc:
        raise FactUnavailable(str(exc)) from exc


def json_arrays(text: str) -> list[str]:
    """Every top-level JSON array in a text, in order (two `docker inspect` outputs pasted one after the other)."""
    arrays: list[str] = []
    pos = 0
    while (start := text.find("[", pos)) >= 0:
        try:
            array = extract_json_array(text[start:])
        except ParseError:
            break
        arrays.append(array)
        pos = text.index(array, start) + len(array)
    return arrays


@parser(DOCKER_INSPECT, feeds="docker_containers", kind=DockerContainers, rank=20)
def containers_from_docker_inspect(text: str) -> DockerContainers:
    """Containers and their HostConfig (a pasted `docker inspect`: the containers it shows, running or not).

    Input (tests/data/captures/83, its first lines; the parser reads the whole array)::

        root@<redacted>:/home/ubuntu# docker container inspect f8f4d8e396299f9646ca2a7ef1b9903a5f19e61e11dc27ea7d6b7e8641bffd43-algoritm
        [
            {
                "Id": "ef0a01ecaeeb718b2154ce2e6c27667850c106d3a1ae39e2b5a13d9af2debfeb",
                "Created": "2025-10-23T05:41:11.291201581Z",
    """
    containers: list[DockerContainer] = []
    for array in json_arrays(text):
        containers.extend(parse_docker_inspect(array))
    if not containers:
        raise ParseError("no container object in the pasted `docker inspect`")
    return DockerContainers(tuple(containers))
