"""CTR-SHM-SIZE on a pod spec that declares a memory emptyDir no container shown mounts (facts/container_specs.py
`_parse_k8s`): the paste was cut before the mounts that use it, so the container's /dev/shm is not shown and the
runtime's 64 MiB default is not concluded. Where the container shows its volumeMounts without it, the default stays."""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.container_specs import parse_k8s
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"
CHECK = "CTR-SHM-SIZE"


def _capture(number: str) -> tuple[str, str]:
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{number}-*.txt")))]), [CHECK])[CHECK]
    return r.status, r.message


def _judge(text: str) -> tuple[str, str]:
    r = run_checks(MemoryHost(recognise(text).record), [CHECK])[CHECK]
    return r.status, r.message


def test_capture_524_memory_dir_declared_manifest_cut_before_mounts() -> None:
    """https://github.com/vllm-project/vllm/issues/10826: a 2Gi memory emptyDir named shm, the manifest cut after
    `requests: cpu: "10"`, before the container's volumeMounts."""
    body = next(CAPTURES.glob("524-*.txt")).read_text().split("-----\n", 1)[1]
    (c,) = parse_k8s(body)
    assert c.excerpt and c.shm_size is None and c.gpu_count == 1
    status, message = _capture("524")
    assert status == "unknown", message
    assert "64 MiB" not in message


def test_capture_300_whole_spec_with_the_mount_stays_ok() -> None:
    """https://github.com/huggingface/text-generation-inference/issues/405 (corpus 300): a 1Gi memory emptyDir
    mounted at /dev/shm in a whole spec."""
    status, message = _capture("300")
    assert status == "ok", message


def test_capture_72_mounts_shown_without_the_dir_stays_an_issue() -> None:
    """https://github.com/NVIDIA/gpu-operator/issues/920 (corpus 72, a one-line Deployment): dshm declared, the
    volumeMounts shown list only /models."""
    status, message = _capture("72")
    assert status == "issue", message


# Modelled: a whole pod whose container shows its volumeMounts, none at /dev/shm, beside a declared dshm.
POD_MOUNTS_SHOWN = """apiVersion: v1
kind: Pod
metadata: {name: vllm}
spec:
  containers:
  - name: server
    image: vllm/vllm-openai:latest
    args: ["--model", "m", "--tensor-parallel-size", "2"]
    resources: {limits: {nvidia.com/gpu: 2}}
    volumeMounts:
    - {mountPath: /models, name: models}
  volumes:
  - name: models
    hostPath: {path: /data/models}
  - name: dshm
    emptyDir: {medium: Memory, sizeLimit: 16Gi}
"""


def test_modelled_mounts_shown_without_dshm_is_the_default() -> None:
    (c,) = parse_k8s(POD_MOUNTS_SHOWN)
    assert not c.excerpt and c.shm_bytes == 64 * 2**20
    status, message = _judge(POD_MOUNTS_SHOWN)
    assert status == "issue" and "64 MiB" in message, message


def test_modelled_dir_mounted_by_a_sidecar_does_not_cut_the_spec() -> None:
    """Modelled: the dshm is mounted by another container of the pod, so the spec is not cut there."""
    pod = POD_MOUNTS_SHOWN.replace("    volumeMounts:\n    - {mountPath: /models, name: models}\n", "").replace(
        "  volumes:\n", "  - name: side\n    image: busybox\n    volumeMounts:\n    - {mountPath: /dev/shm, name: dshm}\n"
        "  volumes:\n")
    server = next(c for c in parse_k8s(pod) if c.name == "server")
    assert not server.excerpt and server.shm_bytes == 64 * 2**20
