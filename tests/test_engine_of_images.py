"""Which engine an image or command names (facts/_parse.engine_of).

TensorRT-LLM is read from its own name: `tensorrt_llm`, `tensorrt-llm`, `trtllm` (Triton's `-trtllm-` images).
A plain TensorRT image (`nvcr.io/nvidia/tensorrt:YY.MM-py3`: the TensorRT SDK, trtexec) runs no engine.
"""

from __future__ import annotations

import pytest

from stackaudit.facts._parse import engine_of
from stackaudit.facts.container_specs import parse_docker_run


@pytest.mark.parametrize(("text", "engine"), [
    # Real: https://github.com/cumulo-autumn/StreamDiffusion/issues/60 (the image it proposes as a base).
    ("nvcr.io/nvidia/tensorrt:23.01-py3", ""),
    # Real: https://github.com/NVIDIA/TensorRT/issues/1305 (its environment line).
    ("nvcr.io/nvidia/tensorrt:21.05-py3", ""),
    # Real: corpus 1629 (Triton's TensorRT-LLM build) and corpus 986 (TensorRT-LLM's own release image).
    ("tritonserver:25.02-trtllm-python-py3", "trtllm"),
    ("nvcr.io/nvidia/tensorrt-llm/release:gpt-oss-dev", "trtllm"),
    ("python3 -m tensorrt_llm.commands.serve /models/llama", "trtllm"),
    ("nvcr.io/nvidia/tensorrtserver:19.10-py3 trtserver --model-store=/models", ""),
])
def test_engine_is_read_from_its_own_name(text: str, engine: str) -> None:
    assert engine_of(text) == engine


def test_modelled_plain_tensorrt_container_runs_no_engine() -> None:
    # Modelled: trtexec building an engine plan in the TensorRT SDK image; no server runs there.
    c = parse_docker_run("docker run --gpus all --rm -v /models:/models nvcr.io/nvidia/tensorrt:24.01-py3 "
                         "trtexec --onnx=/models/model.onnx --saveEngine=/models/model.plan")
    assert c.engine == ""
    c = parse_docker_run("docker run --gpus all --rm nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3 "
                         "tritonserver --model-repository=/models")
    assert c.engine == "trtllm"
