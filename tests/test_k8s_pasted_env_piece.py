"""A pod spec's container pasted from its `env:` list (importers/container_specs._env_fragment) as users paste it:
the `env:` key's indentation lost, the list in the compact form (items at the container keys' indentation) and
secrets masked with asterisks (`value: *****`), which YAML would read as an alias (facts/container_specs._MASKED).

Real pastes: corpus 330 (vllm#17676, a GKE pod's container from `env:` to `resources:`), corpus 137 (a k8s vLLM
pod's env), corpus 300 (a TGI deployment); and a masked value in a public Kubernetes-style YAML (couler#102's env
list with its values masked as users do). The counter-example is modelled.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.container_specs import load_yaml_documents, parse_k8s
from stackaudit.importers.recognition import recognise


def _kinds(text: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == "k8s pod"]


def test_330_gke_pod_env_to_resources_is_one_pod_piece() -> None:
    # The whole fenced piece, from its `env:` line (indented by one space) to the cut inside resources.requests.
    assert _kinds(body("330")) == [("k8s pod", 7, 50)]
    results = capture_checks("330", "CTR-GPU-ACCESS", "CTR-SHM-SIZE")
    # nvidia.com/gpu: "1" from the device plugin, read; the request alone shows no GPU inside (issue 28 h121c).
    assert "request GPUs: vllm-batch (1)" in results["CTR-GPU-ACCESS"].message
    # The piece shows no volumes: its /dev/shm is not shown, never Docker's default.
    assert results["CTR-SHM-SIZE"].status == "unknown"


@pytest.mark.parametrize(("prefix", "span"), [("137", (2, 36)), ("300", (4, 44))])
def test_other_pod_pieces_keep_their_spans(prefix: str, span: tuple[int, int]) -> None:
    assert _kinds(body(prefix)) == [("k8s pod", *span)]


def test_masked_values_are_redactions_not_aliases() -> None:
    # couler-proj/couler#102's env list (https://github.com/couler-proj/couler/issues/102), its values masked.
    text = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: main\n    image: *************\n"
            "    env:\n      - name: NVIDIA_VISIBLE_DEVICES\n        value: ****\n"
            "      - name: NVIDIA_DRIVER_CAPABILITIES\n        value: \"\"\n")
    (ctr,) = parse_k8s(text)
    assert ctr.image == "*************"
    assert dict(ctr.env)["NVIDIA_VISIBLE_DEVICES"] == "****"


def test_modelled_alias_is_still_refused() -> None:
    # Modelled: a real alias (`*base`) is not a mask; aliases stay refused (no expansion bombs).
    with pytest.raises(ParseError):
        load_yaml_documents("a: &base {x: 1}\nb: *base\n")


def test_modelled_env_piece_without_volumes_is_an_excerpt() -> None:
    # Modelled: an env list and resources pasted alone, image shown; the pod's volumes are not, so /dev/shm is unknown.
    text = ("```\n    env:\n    - name: VLLM_LOGGING_LEVEL\n      value: DEBUG\n    - name: HF_TOKEN\n      value: ****\n"
            "    image: vllm/vllm-openai:v0.10.0\n    resources:\n      limits:\n        nvidia.com/gpu: \"2\"\n```\n")
    assert _kinds(text) == [("k8s pod", 2, 10)]
