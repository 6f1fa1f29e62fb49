"""CTR-GPU-ACCESS: a serving container whose engine asks for more GPUs (TP x PP) than its GPU request or
CUDA_VISIBLE_DEVICES lets it see (`DockerContainer.ranks_beyond_gpus`, facts/docker.py)."""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.docker import DockerContainer
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"
CHECK = "CTR-GPU-ACCESS"


def _judge(text: str) -> tuple[str, str]:
    r = run_checks(MemoryHost(recognise(text).record), [CHECK])[CHECK]
    return r.status, r.message


def test_capture_394_compose_cuda_visible_one_gpu_tp4() -> None:
    """https://github.com/vllm-project/vllm/issues/3416: CUDA_VISIBLE_DEVICES=0 with --tensor-parallel-size 4 (the
    service's deploy block is mis-indented, so its GPU request is not read: the environment alone bounds it)."""
    path = next(CAPTURES.glob("394-*.txt"))
    r = run_checks(load_pasted([str(path)]), [CHECK])[CHECK]
    assert r.status == "issue", r.message
    assert "TP x PP = 4, at most 1 GPU" in r.message and "CUDA_VISIBLE_DEVICES=0" in r.message
    assert r.actual == {"qwen1.5": {"ranks": 4, "gpus": 1}}


# https://github.com/vllm-project/vllm/issues/3710 (issue body): two GPUs visible for TP 2, must not fire.
RUN_3710 = """docker run -d --restart unless-stopped \\
    --runtime nvidia --gpus all \\
    --name vllm_d \\
    -v /home/super/data/models:/workspace/models \\
    -p 5010:8000 \\
    --shm-size 10.24g \\
    --ipc=host \\
    -e CUDA_VISIBLE_DEVICES=0,1 \\
    -e NCCL_P2P_DISABLE=1 \\
    vllm/vllm-openai:latest \\
    --gpu-memory-utilization 0.7 --trust-remote-code \\
    --max-model-len 8192 --model /workspace/models/Qwen1.5-7B-Chat \\
    --served-model-name Qwen1.5-7B-Chat \\
    --tensor-parallel-size 2 --enforce-eager
"""

# https://github.com/vllm-project/vllm/issues/4462 (comment by gujingit, 2024-05-07), the container part: two GPUs
# requested for TP 2, must not fire.
POD_4462 = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:0.4.1
    command:
    - "python3 -m vllm.entrypoints.openai.api_server  --port 8080  --trust-remote-code --served-model-name qwen --model /mnt/models/Qwen-14B-Chat --gpu-memory-utilization 0.95 --tensor-parallel-size 2"
    ports:
    - containerPort: 8080
    resources:
      limits:
        nvidia.com/gpu: "2"
      requests:
        cpu: 4
        memory: 8Gi
        nvidia.com/gpu: "2"
"""


def test_real_specs_with_enough_gpus_do_not_fire() -> None:
    for text in (RUN_3710, POD_4462):
        status, message = _judge(text)
        assert status != "issue" and "more GPUs than" not in message, message


def test_modelled_device_request_of_one_gpu_for_tp2() -> None:
    """Modelled: `--gpus '"device=0"'` names one GPU, the engine asks TP 2."""
    text = ("docker run --gpus '\"device=0\"' --ipc=host -p 8000:8000 vllm/vllm-openai:latest "
            "--model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n")
    status, message = _judge(text)
    assert status == "issue" and "TP x PP = 2, at most 1 GPU (a request for 1 GPU)" in message


def test_modelled_counter_examples() -> None:
    """Modelled: a Ray cluster or a multi-node group places ranks on other nodes' GPUs; no bound, no finding."""
    ray = DockerContainer(id="a", name="a", image="vllm/vllm-openai:latest",
                          argv=("--model", "m", "--tensor-parallel-size", "8", "--pipeline-parallel-size", "2",
                                "--distributed-executor-backend", "ray"),
                          env=(("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"),))
    assert ray.ranks_beyond_gpus is None
    unbounded = DockerContainer(id="b", name="b", image="vllm/vllm-openai:latest", argv=("--tensor-parallel-size", "4"))
    assert unbounded.ranks_beyond_gpus is None
    pp = DockerContainer(id="c", name="c", image="vllm/vllm-openai:latest",
                         argv=("--tensor-parallel-size", "2", "--pipeline-parallel-size", "2"),
                         env=(("CUDA_VISIBLE_DEVICES", "GPU-8f6c2a1e-0000-0000-0000-000000000000,1,2"),))
    assert pp.cuda_visible_count == 3 and pp.ranks_beyond_gpus == (4, 3)
    odd = DockerContainer(id="d", name="d", image="vllm/vllm-openai:latest", argv=("--tensor-parallel-size", "2"),
                          env=(("CUDA_VISIBLE_DEVICES", "$GPUS"),))
    assert odd.cuda_visible_count is None and odd.ranks_beyond_gpus is None


# --- NVIDIA_VISIBLE_DEVICES set by hand beside nvidia.com/gpu (`DockerContainer.visible_devices_by_hand`) ---------

# https://github.com/vllm-project/vllm/issues/1566 (comment by hughesadam87, 2023-11-06), verbatim up to the args
# list, which the retrieved copy cuts: its last two lines (`"--max-model-len", "4096"]`) close it here.
DEPLOYMENT_1566 = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  labels:
    app: vllm
spec:
  # GPU instances expensive, scale this to 0 when not using
  replicas: 1
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
    spec:
      # Only schedule on nodes with this label
      nodeSelector:
        workload-type: gpu
      containers:
        - name: vllm-container
          image: lmisam/vllm-openai:latest
          imagePullPolicy: Always
          ports:
            - containerPort: 8000
              name: api
          resources:
            limits:
              nvidia.com/gpu: "4"
          env:
            - name: NVIDIA_VISIBLE_DEVICES
              value: "all"
            - name: CUDA_VISIBLE_DEVICES
              value: "0,1,2,3" # ensures the container app can see all 4 GPUs

          #         Big model
          args: [ "--model", "TheBloke/OpenHermes-2-Mistral-7B-AWQ",
                  "--quantization", "awq",
                  "--dtype", "float16",
                  "--max-model-len", "4096"]
"""


def test_capture_387_env_index_beside_device_plugin_limit() -> None:
    """https://github.com/NVIDIA/k8s-device-plugin/issues/1294: NVIDIA_VISIBLE_DEVICES="1" beside nvidia.com/gpu: "1"
    in a pod spec the author cut ('...'): both lines are in the piece, so the conflict is shown."""
    path = next(CAPTURES.glob("387-*.txt"))
    r = run_checks(load_pasted([str(path)]), [CHECK])[CHECK]
    assert r.status == "issue", r.message
    assert "NVIDIA_VISIBLE_DEVICES='1' with nvidia.com/gpu: 1" in r.message


def test_real_deployment_all_beside_gpu_limit() -> None:
    status, message = _judge(DEPLOYMENT_1566)
    assert status == "issue" and "NVIDIA_VISIBLE_DEVICES='all' with nvidia.com/gpu: 4" in message


def test_modelled_env_without_plugin_request_is_not_this_rule() -> None:
    """Modelled: the variable without an nvidia.com/gpu request is the runtime's own way to pick GPUs, not a
    conflict with an allocation; and the real pod of vllm#4462 sets no variable."""
    plain = DockerContainer(id="p", name="p", image="vllm/vllm-openai:latest", origin="kubernetes",
                            env=(("NVIDIA_VISIBLE_DEVICES", "all"),))
    assert plain.visible_devices_by_hand is None
    status, message = _judge(POD_4462)
    assert status != "issue" and "by hand" not in message
