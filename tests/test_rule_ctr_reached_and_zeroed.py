"""Containers and Kubernetes pods, the BA/BC misses (h89a).

CTR-GPU-ACCESS: an NCCL communicator's `Init START` line naming the rank's nvmlDev and busId is read
through CUDA and NVML in the rank's container (corpus 1947); LocalAI's All-in-One entrypoint prints `NVIDIA GPU
detected` and runs nvidia-smi in its container, whose table means NVML opened a GPU there (corpus 1953); a node whose
capacity counts nvidia.com/gpu at 0 and no other GPU resource offers no GPU (corpus 1979).
A pod's GPU limit of 0 is no GPU request (corpus 1980): CTR-K8S-GPU-TOPOLOGY not applicable; a whole spec whose command
only holds its container open keeps the /dev/shm it shows, unused: CTR-SHM-SIZE not an issue (corpus 940, 1980).
CTR-MEMLOCK: an NCCL log whose job opens no RDMA NIC, no limit shown, is not applicable (corpus 1957).
A pod's scheduling events and its YAML `status:` block, pasted alone, are pieces of a pod (1958, 1945, 1932).
The lines are real, from the thread named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.k8s_node import parse_k8s_nodes
from stackaudit.importers.recognition import recognise

ACCESS = "CTR-GPU-ACCESS"
SHM = "CTR-SHM-SIZE"
TOPO = "CTR-K8S-GPU-TOPOLOGY"
MEMLOCK = "CTR-MEMLOCK"

# vllm-project/vllm#5405: a vLLM deployment's pod (its name the NCCL host), NCCL 2.18's communicator line.
POD_INIT_START = """\
mwh-deployment-cp2nvtm93l1ljsuft5kg-0:291:5595 [0] NCCL INFO Using network Socket
mwh-deployment-cp2nvtm93l1ljsuft5kg-0:291:5595 [0] NCCL INFO comm 0x560e24f599a0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 27000 commId 0xebcd10afa0bbcee4 - Init START
"""

# vllm-project/vllm#10453 (docker.io/vllm/vllm-openai:v0.6.4.post1): the communicator's Init COMPLETE lines; the
# `docker run` above them is modelled (the issue names the image, not its command line), given its GPUs by the
# variable alone as corpus 1947's is, so its request proves nothing.
DOCKER_INIT_COMPLETE = """\
docker run --ipc=host -e NVIDIA_VISIBLE_DEVICES=0,1,2,3 vllm/vllm-openai:v0.6.4.post1 --model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4
h100-2:149:168 [3] NCCL INFO comm 0x324b3b30 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId d000 commId 0xbfb92b42c4ae96e - Init COMPLETE
h100-2:147:169 [1] NCCL INFO comm 0xa7aa6e0 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId b000 commId 0xbfb92b42c4ae96e - Init COMPLETE
"""

# mudler/LocalAI#2117: the AIO image in a pod without the nvidia runtime class; its entrypoint finds no nvidia-smi.
AIO_NO_SMI = """\
 ===> LocalAI All-in-One (AIO) container starting...
NVIDIA GPU detected
/aio/entrypoint.sh: line 52: nvidia-smi: command not found
NVIDIA GPU detected, but nvidia-smi is not installed. GPU acceleration will not be available.
GPU acceleration is not enabled or supported. Defaulting to CPU.
"""

# Modelled: a MIG node under the mixed strategy, its whole GPUs partitioned (nvidia.com/gpu 0 beside its MIG devices).
MIG_MIXED_ZERO = """\
Name:               a100-node
Roles:              <none>
Labels:             nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB
                    nvidia.com/mig.strategy=mixed
Capacity:
  cpu:                    64
  nvidia.com/gpu:         0
  nvidia.com/mig-1g.5gb:  7
  pods:                   110
Allocatable:
  cpu:                    64
  nvidia.com/gpu:         0
  nvidia.com/mig-1g.5gb:  7
  pods:                   110
Events:                   <none>
"""

# NVIDIA/k8s-device-plugin#213: the scheduler's one event line, pasted alone.
ONE_EVENT = """\
and as expected, I cannot create another GPU Pod:
```
  Warning  FailedScheduling  12s   default-scheduler  0/6 nodes are available: 6 Insufficient nvidia.com/gpu.
```
"""

# vllm-project/vllm#3710: NCCL 2.18 with no verbs library, its network sockets (one line as pasted, split at its
# NCCL tags).
NO_VERBS = """\
wjw-gpu:121572:123489 [0] NCCL INFO Failed to open libibverbs.so[.1]
wjw-gpu:121572:123489 [0] NCCL INFO NET/Socket : Using [0]eth0:172.29.25.108<0>
wjw-gpu:121572:123489 [0] NCCL INFO Using network Socket
"""


def test_an_nccl_communicator_line_in_a_container_shows_the_gpu_reached_it(tmp_path: Path) -> None:
    result = capture_checks("1947", ACCESS)[ACCESS]
    assert result.status == "ok" and "busId 48000" in result.message
    # NCCL 2.18's line without the function's name is read so too; where the source does not show a container (a
    # pod's name as the host is not read as one) it decides nothing here.
    assert "Init START" in fact(pasted(POD_INIT_START), "serving_log").nccl_rings_line
    assert paste_checks(tmp_path, POD_INIT_START, ACCESS)[ACCESS].status == "unknown"
    # Its Init COMPLETE was read so before (facts/cuda_ran.py), and still is.
    docker = paste_checks(tmp_path, DOCKER_INIT_COMPLETE, ACCESS)[ACCESS]
    assert docker.status == "ok" and "finished its communicator's init" in docker.message


def test_a_communicator_line_without_its_nvml_device_proves_nothing(tmp_path: Path) -> None:
    # Modelled: corpus 1947's Init START lines cut before their nvmlDev, in the same container.
    cut = "\n".join(line.split(" nvmlDev")[0] for line in body("1947").splitlines()) + "\n"
    assert paste_checks(tmp_path, cut, ACCESS)[ACCESS].status == "unknown"


def test_localai_aio_runs_nvidia_smi_inside_its_container(tmp_path: Path) -> None:
    result = capture_checks("1953", ACCESS)[ACCESS]
    assert result.status == "ok" and "nvidia-smi run inside the container" in result.message
    # Its entrypoint finding no nvidia-smi is the runtime not handing the driver over: never ok.
    assert paste_checks(tmp_path, AIO_NO_SMI, ACCESS)[ACCESS].status == "issue"
    # The same docker run with nvidia-smi's table cut and no entrypoint line: nothing from inside (corpus 1755's rule).
    smi_only = "\n".join(line for line in body("1953").splitlines() if "GPU detected" not in line) + "\n"
    assert paste_checks(tmp_path, smi_only, ACCESS)[ACCESS].status == "unknown"


def test_a_node_whose_capacity_counts_its_gpu_resource_at_zero_offers_none(tmp_path: Path) -> None:
    result = capture_checks("1979", ACCESS)[ACCESS]
    assert result.status == "issue" and '`nvidia.com/gpu: "0"`' in result.message
    # Partitioned by MIG, the whole-GPU resource at 0 is the GPUs' new shape, not a GPU lost.
    (node,) = parse_k8s_nodes(MIG_MIXED_ZERO).nodes
    assert node.zeroed() is None
    assert paste_checks(tmp_path, MIG_MIXED_ZERO, ACCESS)[ACCESS].status != "issue"


def test_a_pod_whose_gpu_limit_is_zero_asks_for_no_gpu() -> None:
    result = capture_checks("1980", TOPO, SHM)
    assert result[TOPO].status == "not-applicable" and "asks for no nvidia.com/gpu" in result[TOPO].message
    assert result[SHM].status == "not-an-issue" and "only holds the container open" in result[SHM].message


def test_a_keep_alive_pod_keeps_its_default_shm_unused_and_a_check_has_none() -> None:
    assert capture_checks("940", SHM)[SHM].status == "not-an-issue"
    # `sleep 30; nvidia-smi` is a check that exits (corpus 273): no /dev/shm of its to judge.
    assert capture_checks("273", SHM)[SHM].status == "not-applicable"


def test_an_nccl_job_without_rdma_has_no_memlock_to_judge(tmp_path: Path) -> None:
    result = capture_checks("1957", MEMLOCK)[MEMLOCK]
    assert result.status == "not-applicable" and "libibverbs" in result.message
    assert paste_checks(tmp_path, NO_VERBS, MEMLOCK)[MEMLOCK].status == "not-applicable"
    # Modelled: NCCL opening an HCA is RDMA at work; the limit is then what matters, and it is not shown.
    hca = NO_VERBS.replace("Failed to open libibverbs.so[.1]", "NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>")
    assert paste_checks(tmp_path, hca, MEMLOCK)[MEMLOCK].status == "unknown"


def test_a_pods_events_and_status_block_are_pieces_of_a_pod(tmp_path: Path) -> None:
    for prefix, span in (("1958", (31, 35)), ("1945", (24, 24)), ("1932", (2, 7))):
        assert ("k8s pod listing", *span) in recognise(body(prefix)).recognised, prefix
    assert ("k8s pod listing", 3, 3) in recognise(ONE_EVENT).recognised
    # Its symptom is still read: every GPU the node offers is taken (corpus 1945), and in a lone paste the scheduler's
    # refusal for the resource.
    assert paste_checks(tmp_path, ONE_EVENT, ACCESS)[ACCESS].status == "issue"
    assert capture_checks("1932", ACCESS)[ACCESS].status == "issue"
