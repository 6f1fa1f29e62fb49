"""Issue 28, no absence from an excerpt: a container spec (compose file, `docker run` line, pod spec) that runs to the
end of a fenced block that never closes goes on past the paste, so what the cut left out (shm_size, ipc, the engine's
command, a GPU request) is unknown, not absent. The recogniser records such a spec with SPEC_CUT_MARK
(importers/recognition._recorded_cut, `Found.cut`) and the readers mark its containers as excerpts
(facts/container_specs._containers; compose: the service the cut lands in)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container_specs import SPEC_CUT_MARK, parse_compose

# Modelled on corpus 1117 (noonghunna/qwen36-27b-single-3090#4): a vLLM compose service whose paste ends inside its
# environment list, in a fence that never closes.
COMPOSE = """\
i ran it with this dockercompose:

```
services:
  vllm-qwen36-27b:
    image: 'vllm/vllm-openai:nightly'
    container_name: vllm-qwen36-27b
    ports:
      - '8020:8000'
    environment:
      - VLLM_WORKER_MULTIPROC_METHOD=spawn
      - NCCL_CUMEM_ENABLE=0
"""

# Modelled: a `docker run` whose continued lines run to the paste's end.
DOCKER_RUN = """\
I start it with:

```
docker run --gpus all -p 8000:8000 \\
    -e HF_HOME=/data \\
    vllm/vllm-openai:v0.8.5 --model Qwen/Qwen2.5-7B-Instruct \\
"""

# Modelled: a pod spec cut after its container's GPU limit, before the pod's volumes.
POD = """\
```
apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:v0.8.5
    args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def _containers(text: str) -> dict[str, tuple[bool, bool]]:
    """Each container of a paste: (excerpt, env_whole)."""
    return {c.label: (c.excerpt, c.env_whole) for c in fact(pasted(text), "docker_containers").containers}


def test_corpus_1117_compose_cut_in_its_environment_is_an_excerpt() -> None:
    # Real: the compose ends after `- NCCL_CUMEM_ENABLE=0` inside the open fence: its shm_size / ipc and its
    # `command:` may follow, so neither the 64 MiB default nor the image's CUDA graphs are concluded.
    assert body("1117").rstrip().endswith("- NCCL_CUMEM_ENABLE=0")
    results = capture_checks("1117", "CTR-SHM-SIZE", "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS")
    assert results["CTR-SHM-SIZE"].status == "unknown"
    assert results["RT-CUDA-GRAPHS"].status == "unknown" and "excerpt" in results["RT-CUDA-GRAPHS"].message
    # The spec's cut leaves its GPU request unknown; vLLM's metrics line, generating on its GPU KV cache, shows the
    # container reached the GPU (facts/cuda_ran.py).
    gpu = results["CTR-GPU-ACCESS"]
    assert gpu.status == "ok" and "KV cache" in gpu.message


def test_the_same_compose_closed_is_judged_whole(tmp_path: Path) -> None:
    # Counter-example: the fence closes after the service, so the service is all there is: 64 MiB for vLLM's image
    # with no arguments, one rank (nothing exchanged through /dev/shm), graphs on.
    assert _containers(COMPOSE + "```\n") == {"vllm-qwen36-27b": (False, True)}
    results = paste_checks(tmp_path, COMPOSE + "```\n", "CTR-SHM-SIZE", "RT-CUDA-GRAPHS")
    assert results["CTR-SHM-SIZE"].status == "not-an-issue" and "one rank" in results["CTR-SHM-SIZE"].message
    assert results["RT-CUDA-GRAPHS"].status == "ok"
    assert _containers(COMPOSE) == {"vllm-qwen36-27b": (True, False)}
    results = paste_checks(tmp_path, COMPOSE, "CTR-SHM-SIZE", "RT-CUDA-GRAPHS")
    assert results["CTR-SHM-SIZE"].status == "unknown"
    assert results["RT-CUDA-GRAPHS"].status == "unknown"


def test_only_the_service_the_cut_lands_in_is_an_excerpt() -> None:
    # Modelled: two services, the paste cut inside the second: the first ends where the second begins.
    two = COMPOSE.replace("services:\n", "services:\n  web:\n    image: nginx:1.27\n    shm_size: 1g\n")
    assert _containers(two) == {"web": (False, True), "vllm-qwen36-27b": (True, False)}
    # Cut below `services:` (in a later top-level key): every service is whole.
    below = COMPOSE + "    shm_size: 16g\nnetworks:\n  default:\n    name: ai\n"
    assert _containers(below) == {"vllm-qwen36-27b": (False, True)}


def test_the_mark_is_read_only_as_the_reader_is_given_it() -> None:
    # The mark is a YAML comment: the cut text parses as the text does, its last service an excerpt.
    text = "services:\n  a:\n    image: x\n  b:\n    image: vllm/vllm-openai:latest\n"
    assert [c.excerpt for c in parse_compose(text)] == [False, False]
    assert [c.excerpt for c in parse_compose(SPEC_CUT_MARK + text)] == [False, True]


@pytest.mark.parametrize(("text", "label"), [(DOCKER_RUN, "vllm/vllm-openai:v0.8.5"), (POD, "vllm")])
def test_a_run_line_or_pod_cut_at_the_paste_end_is_an_excerpt(text: str, label: str) -> None:
    assert _containers(text) == {label: (True, False)}
    # Closed, the same spec is whole (a `docker run` closed on a trailing `\` is still one line of it).
    closed = text.rstrip().removesuffix("\\").rstrip() + "\n```\n"
    assert _containers(closed)[label][0] is False


def test_a_cut_run_line_shows_no_eager_flag_but_proves_none_absent(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, DOCKER_RUN, "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS")
    assert results["RT-CUDA-GRAPHS"].status == "unknown"
    # What the cut spec shows still counts: its --gpus all is a GPU request (alone no GPU inside: unknown, h121c).
    assert "request GPUs:" in results["CTR-GPU-ACCESS"].message
