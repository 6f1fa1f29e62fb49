"""A compose service's keys pasted indented under a line of prose, without the service's name (issue 28, corpus
1844): read as one service of a compose file (importers/container_specs._unnamed_service). Real lines are corpus
captures or quoted from the public threads named beside them; counter-examples are modelled and say so."""

from __future__ import annotations

from corpus import body, fact
from stackaudit.facts.docker import DockerContainers
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise

# https://github.com/mudler/LocalAGI/pull/160 (a review suggestion, 2025-05-17): the image line alone in its block.
SUGGESTION_160 = "```suggestion\n    image: localai/localai:v1.2.3-cublas-cuda12\n```\n"


def _kinds(text: str) -> list[str]:
    return [k for k, _, _ in recognise(text).recognised]


def _images(text: str) -> list[str]:
    value = fact(MemoryHost(recognise(text).record), "docker_containers")
    return [c.image for c in value.containers] if isinstance(value, DockerContainers) else []


def test_corpus_1844_image_lines_under_a_heading_are_one_service() -> None:
    """Corpus 1844: five `#image:` lines commented out above the one used; the commented ones are no image."""
    assert _images(body("1844")) == ["localai/localai:latest-gpu-nvidia-cuda-12"]


def test_an_image_line_alone_in_its_block_is_a_service() -> None:
    assert _images(SUGGESTION_160) == ["localai/localai:v1.2.3-cublas-cuda12"]


def test_a_pod_containers_keys_under_prose_are_no_compose_service() -> None:
    """Modelled: a container's keys with a pod's `resources:` under a line of prose are a pod's, not a service's."""
    text = ("My container is:\n    image: nvcr.io/nvidia/tritonserver:24.01-py3\n    resources:\n      limits:\n"
            "        nvidia.com/gpu: 1\n")
    assert "compose" not in _kinds(text)


def test_a_containers_name_and_image_under_prose_are_no_compose_service() -> None:
    """Modelled: `name:` beside `image:` is a Kubernetes container's key, which no compose service has."""
    assert "compose" not in _kinds("The validator container:\n    name: toolkit-validation\n"
                                   "    image: nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0\n")
