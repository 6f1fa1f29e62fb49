"""A pod's IPC and /dev/shm as the user states them in words, where no pod spec is pasted
(importers/container_specs._stated_pod, K8S_STATED_MARK): "`hostIPC: true` and `/dev/shm` volume were **not set**"
is a pod with the 64 MiB default /dev/shm, and a GPU request in the same list is its request.

Real pastes: corpus 331 (vllm#42389: the TP 8 pod, stated in words, beside the engine command); vllm#37982 and
chutesai/chutes-miner#1, whose words name /dev/shm or host IPC without stating a pod's setting (not read).
The how-to question is modelled.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks
from stackaudit.importers.recognition import recognise


def _pods(text: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == "k8s pod"]


def test_331_tp8_pod_without_hostipc_or_dshm() -> None:
    assert _pods(body("331")) == [("k8s pod", 26, 26)]
    results = capture_checks("331", "CTR-SHM-SIZE", "CTR-IPC-ISOLATION")
    assert results["CTR-SHM-SIZE"].status == "issue"  # 64 MiB for eight ranks (nvidia.com/vgpu: 8)
    assert "Kubernetes" in str(results["CTR-SHM-SIZE"].fix)  # the pod's fix, not docker run's
    assert results["CTR-IPC-ISOLATION"].status == "not-applicable"  # one pod holds every rank


@pytest.mark.parametrize("words", [
    # https://github.com/vllm-project/vllm/issues/37982 (issue body)
    "This Helm chart does not provide a way to configure shared memory (`/dev/shm`) for the vLLM container.",
    # https://github.com/chutesai/chutes-miner/issues/1 (issue body)
    "Many things tried, with no success, NVML comms always fail unless the pod runs with fully privileged access to "
    "host machine and host network/IPC, which is never going to happen.\n\nIncrease /dev/shm which (vllm at least) "
    "uses for IPC.",
])
def test_words_that_state_no_pod_setting_are_not_read(words: str) -> None:
    assert _pods(words) == []


def test_modelled_how_to_question_is_not_a_pod() -> None:
    # Modelled on a how-to's question: it names both and a negation, but states nothing of a pod; nor does a
    # pod whose settings were made.
    assert _pods("How do you increase /dev/shm without hostIPC: true?\n") == []
    assert _pods("We set hostIPC and a /dev/shm volume but still no luck.\n") == []
