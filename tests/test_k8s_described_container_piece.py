"""One container of a `kubectl describe pod` pasted without the pod's `Name:`/`Namespace:` header (issue 28, corpus
1874, 1207): read from its `Container ID:` line under the container's name as a piece of the pod's spec
(importers/container_specs._described_container). Real lines are corpus captures; counter-examples are modelled and
say so."""

from __future__ import annotations

import yaml

from corpus import body
from stackaudit.facts.container_specs import K8S_PIECE_MARK
from stackaudit.facts.sources import K8S_SPEC
from stackaudit.importers.recognition import recognise


def _specs(text: str) -> list[dict[str, object]]:
    doc = recognise(text).record.docs.get(K8S_SPEC.name, "")
    return [d for d in yaml.safe_load_all(doc.replace(K8S_PIECE_MARK, "")) if d] if doc else []


def test_corpus_1874_validator_init_container_is_read() -> None:
    """Corpus 1874: the paste opens inside the mounts of the init container before; toolkit-validation is read whole
    up to the runtime's message that wraps to column 0."""
    (pod,) = _specs(body("1874"))
    (ctr,) = pod["spec"]["containers"]  # type: ignore[index]
    assert ctr["name"] == "toolkit-validation"
    assert ctr["image"] == "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0"
    assert ctr["command"] == ["sh", "-c"] and ctr["args"] == ["nvidia-validator"]


def test_corpus_1207_driver_container_under_the_init_containers_mounts() -> None:
    """Corpus 1207: the driver container under `Containers:`, the pod's header cut off above its init containers."""
    (pod,) = _specs(body("1207"))
    (ctr,) = pod["spec"]["containers"]  # type: ignore[index]
    assert (ctr["name"], ctr["args"]) == ("nvidia-driver-ctr", ["init"])
    assert ctr["image"].endswith("/nvidia/driver:515-signed-ubuntu20.04")


def test_container_id_not_under_a_container_name_is_no_pod() -> None:
    """Modelled: a `Container ID:` field under prose, or at the same column as the line above, is no container."""
    assert not _specs("The pod shows:\n    Container ID:  containerd://a71f\n    Image:         nvcr.io/x:1\n")
    assert not _specs("  validator:\n  Container ID:  containerd://a71f\n  Image:         nvcr.io/x:1\n")
