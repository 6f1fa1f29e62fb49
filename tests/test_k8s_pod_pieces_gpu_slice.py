"""Pieces of a pod spec at column 0 and GPU-sharing resources (importers/container_specs.py _pod_piece,
facts/docker.py GPU_SHARE_RESOURCES, CTR-GPU-ACCESS and MEM-GPU-SHARED).

A container's keys pasted as blocks of their own (`volumeMounts:`, `resources:`, `args:`), pieces elided between them
with `# ...`, are a pod's when one asks for a GPU and one runs a program. Its args' TP x PP within its GPU request
make it the engine's container (CTR-GPU-ACCESS ok). HAMi's `nvidia.com/gpumem` (and its percent and SM resources,
Volcano's and Alibaba's GPU-share resources) give a pod a slice of each GPU it gets: MEM-GPU-SHARED issue.
Real pastes are corpus captures or verbatim excerpts (the source beside each); modelled inputs are marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import (
    body,
    capture_checks,
    capture_report,
    capture_result,
    fact,
    paste_checks,
    pasted,
    report_spans,
)
from stackaudit.engine.collect import Missing

# https://github.com/Project-HAMi/HAMi/issues/446 (description by lut777, 2024-08-19), the pod spec verbatim.
HAMI_446 = """apiVersion: v1
kind: Pod
metadata:
  name: pytorch-pod
spec:
  hostPID: true
  containers:
    - name: tf-container
      image: pytorch-mnist-test
      imagePullPolicy: IfNotPresent
      command: ["/bin/bash", "-c", "python /project/mnist.py"]
      resources:
        limits:
          nvidia.com/gpu: 1
          nvidia.com/gpumem: 1000
          nvidia.com/gpucores: 50
"""

# https://github.com/Project-HAMi/HAMi/issues/1417 (description by kaiiyvwu, 2025-10-17), the pod spec verbatim.
HAMI_1417 = """apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  containers:
    - name: ubuntu-container
      image: ubuntu:22.04
      command: ["python", "/home/test.py"]
      resources:
          limits:
            cpu: "4"
            memory: 4Gi
            nvidia.com/gpu: "1"
            nvidia.com/gpumem: 5k
          requests:
            cpu: "4"
            memory: 4Gi
  schedulerName: hami-scheduler
"""


def test_corpus_824_pieces_are_read_as_one_pod() -> None:
    # HAMi#1461: volumeMounts, volumes, resources and args at column 0, elided with `# ...`.
    (ctr,) = fact(pasted(body("824")), "docker_containers").containers
    assert ctr.gpu_count == 2 and ctr.parallel_world == 2 and ctr.excerpt
    assert ctr.gpu_slice == (("nvidia.com/gpumem", "20k"),)


def test_corpus_824_gpu_access_read_and_a_shared_gpu() -> None:
    res = capture_checks("824", "CTR-GPU-ACCESS", "MEM-GPU-SHARED")
    # The piece's request is read with its args' TP x PP; with nvidia-smi cut in its header, nothing shows a GPU
    # inside (unknown, issue 28 h121c).
    assert res["CTR-GPU-ACCESS"].status == "unknown" and "TP x PP of 2" in res["CTR-GPU-ACCESS"].message
    assert res["MEM-GPU-SHARED"].status == "issue" and "nvidia.com/gpumem: 20k" in res["MEM-GPU-SHARED"].message


def test_hami_446_memory_and_sm_slice_is_shared(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, HAMI_446, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert res.status == "issue" and "nvidia.com/gpucores: 50" in res.message


def test_hami_1417_memory_slice_is_shared(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, HAMI_1417, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert res.status == "issue" and "nvidia.com/gpumem: 5k" in res.message


def test_hami_1417_blocks_at_column_0_are_a_pod(tmp_path: Path) -> None:
    # HAMi#1417's resources and command, pasted as 824 pastes its pieces (the cut and block list modelled): read as its pod.
    text = "resources:\n  limits:\n    nvidia.com/gpu: \"1\"\n    nvidia.com/gpumem: 5k\n# ...\ncommand:\n  - python\n" \
           "  - /home/test.py\n"
    (ctr,) = fact(pasted(text), "docker_containers").containers
    assert ctr.gpu_count == 1 and ctr.argv == ("python", "/home/test.py") and ctr.gpu_slice


def test_whole_gpus_at_100_percent_are_no_slice(tmp_path: Path) -> None:
    # Modelled: HAMi#446's pod asking for every percent of the GPU's memory and SMs.
    text = HAMI_446.replace("nvidia.com/gpumem: 1000", "nvidia.com/gpumem-percentage: 100").replace(
        "nvidia.com/gpucores: 50", "nvidia.com/gpucores: 100")
    (ctr,) = fact(pasted(text), "docker_containers").containers
    assert ctr.gpu_shares and not ctr.gpu_slice
    assert paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"


def test_a_gpu_check_on_a_slice_is_no_shared_serving_gpu(tmp_path: Path) -> None:
    # Modelled: HAMi#446's pod running `nvidia-smi` only (a GPU check that exits): it serves nothing on the slice.
    text = HAMI_446.replace('["/bin/bash", "-c", "python /project/mnist.py"]', '["nvidia-smi"]')
    assert paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"


def test_a_piece_whose_tp_exceeds_its_gpus_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 824 with --tensor-parallel-size=4 on its 2 GPUs: not shown to be given what its ranks need.
    text = body("824").replace("--tensor-parallel-size=2", "--tensor-parallel-size=4")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_blocks_without_a_gpu_request_are_no_pod() -> None:
    # Modelled: 824's pieces with a memory limit in place of the GPU resources.
    text = body("824").replace("nvidia.com/gpu: 2", "memory: 4Gi").replace("nvidia.com/gpumem: 20k", "cpu: 2")
    assert isinstance(fact(pasted(text), "docker_containers"), Missing)


# A container's `resources:` pasted alone, indented as in its pod (with the status keys after it or not): its limits or
# requests listing a GPU resource make it a container's piece (importers/container_specs._gpu_resources).


def test_corpus_2410_resources_alone_are_two_pod_pieces() -> None:
    # HAMi#1704: `resources:` with nvidia.com/gpu and nvidia.com/gpumem: 4k, then restartCount, qosClass, resize.
    spans = [(k, a, b) for k, a, b in report_spans(capture_report("2410")) if k == "k8s pod"]
    assert [a for _, a, _ in spans] == [9, 33]
    res = capture_checks("2410", "MEM-GPU-SHARED", "CTR-K8S-GPU-TOPOLOGY")
    assert res["MEM-GPU-SHARED"].status == "issue" and "nvidia.com/gpumem: 4k" in res["MEM-GPU-SHARED"].message
    assert capture_result("2410", "CTR-K8S-GPU-TOPOLOGY").status == "not-applicable"


def test_hami_1417_resources_alone_are_a_slice() -> None:
    # HAMi#1417's resources block (verbatim above), pasted without its container.
    text = HAMI_1417[HAMI_1417.index("      resources:"):HAMI_1417.index("  schedulerName")]
    (ctr,) = fact(pasted(text), "docker_containers").containers
    assert ctr.gpu_count == 1 and ctr.gpu_slice == (("nvidia.com/gpumem", "5k"),)


def test_resources_alone_without_a_gpu_are_no_pod() -> None:
    # Modelled: 2410's first block with its GPU resources left out, and a compose service's device reservation.
    text = "    resources:\n      limits:\n        cpu: \"4\"\n        memory: 8G\n    restartCount: 0\n  qosClass: Burstable\n"
    assert isinstance(fact(pasted(text), "docker_containers"), Missing)
    compose = ("    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n"
               "              capabilities: [gpu]\n              nvidia.com/gpu: 1\n")
    found = fact(pasted(compose), "docker_containers")
    assert isinstance(found, Missing) or all(c.origin != "kubernetes" for c in found.containers)
