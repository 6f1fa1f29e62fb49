"""A piece of a container spec gives CTR-GPU-ACCESS neither ok nor not-applicable: the part left out may hold it.

A Kubernetes container shown without its image (Kubernetes refuses one) is not shown to be the serving container,
nor whole; a compose service cut at `deploy:` / `resources:` / `reservations:` / `devices:` (a key that holds
nothing) may have had its GPU reservation in the lines that follow (facts/container_specs.py `_cut_in_deploy`).
Real pastes are corpus captures, each from its own public thread; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks


def test_a_pod_fragment_with_a_gpu_limit_but_no_image_is_unknown() -> None:
    # corpus 172 (ray-project/ray#12881): volumeMounts and limits with nvidia.com/gpu: 1, cut in env; was ok.
    res = capture_checks("172", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "unknown"
    assert "no image shown" in res.message and "1" in res.message


def test_a_compose_service_cut_at_reservations_is_unknown() -> None:
    # corpus 163 (ollama/ollama#6364): the service ends at `reservations:`; was not-applicable ("no serving container").
    res = capture_checks("163", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "unknown"
    assert "is cut part-way" in res.message and "reservations" in res.message


def test_a_pod_fragment_of_mounts_only_is_unknown() -> None:
    # corpus 274 (vllm-project/production-stack#44): volumeMounts and volumes of a Helm template, no container head.
    res = capture_checks("274", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "unknown"
    assert "pod spec is a piece" in res.message


def test_the_whole_pod_with_the_same_limit_is_judged_on_it(tmp_path: Path) -> None:
    # Modelled: corpus 172's container with its head (name, image) in a whole pod.
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ray-head\nspec:\n  containers:\n  - name: ray-head\n"
            "    image: rayproject/ray:latest-gpu\n    resources:\n      limits:\n        memory: 2Gi\n"
            "        nvidia.com/gpu: 1\n")
    # Judged on its request, not as a piece: alone it shows no GPU inside (unknown, issue 28 h121c).
    result = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert "request GPUs: ray-head (1)" in result.message and "piece" not in result.message


def test_a_compose_service_with_its_reservation_is_judged_on_it(tmp_path: Path) -> None:
    # Modelled: corpus 163's service completed with the reservation its cut hid.
    text = ("services:\n  ollama:\n    image: ollama/ollama:latest\n    deploy:\n      resources:\n"
            "        reservations:\n          devices:\n            - driver: nvidia\n              count: 1\n"
            "              capabilities: [gpu]\n")
    result = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert "request GPUs: ollama (1)" in result.message and "cut part-way" not in result.message
