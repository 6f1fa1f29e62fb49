"""CTR-GPU-ACCESS: a serving container whose engine asks for more GPUs (TP x PP) than its GPU request or
CUDA_VISIBLE_DEVICES lets it see (`DockerContainer.ranks_beyond_gpus`, facts/docker.py)."""

from __future__ import annotations

from pathlib import Path

from corpus import fact
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

# https://github.com/vllm-project/vllm/issues/2773 (comment by alsichcan, 2024-02-13): two GPUs named for TP 2.
RUN_2773 = """docker run -d --name graph_llm \\
    --runtime nvidia \\
    --gpus '"device=1,2"' \\
    --ipc=host \\
    vllm/vllm-openai:latest \\
    --model mistralai/Mistral-7B-Instruct-v0.2 \\
    --gpu-memory-utilization 0.9 \\
    --tensor-parallel-size 2 \\
    --engine-use-ray
"""

# https://github.com/vllm-project/vllm/issues/27251 (issue body, "Startup command"): eight GPUs named for TP 8.
RUN_27251 = ("docker run -d   --name Qwen3-Coder-480B-A35B-Instruct-GGUF   --runtime nvidia   "
             "--gpus '\"device=0,1,2,3,4,5,6,7\"'   -v /xinference/my_model/Qwen3-Coder-480B-A35B-Instruct-GGUF:"
             "/root/.cache/modelscope/Qwen3-Coder-480B-A35B-Instruct-GGUF   -p 8056:8081   --ipc=host   "
             "swr.cn-north-4.myhuaweicloud.com/ddn-k8s/docker.io/vllm/vllm-openai:v0.10.2   --api-key qwen3coder480b     "
             "--model /root/.cache/modelscope/Qwen3-Coder-480B-A35B-Instruct-GGUF/"
             "Qwen3-Coder-480B-A35B-Instruct-Q4_K_M-Merge.gguf   --served-model-name Qwen3-Coder-480B-A35B-Instruct   "
             "--enable-auto-tool-choice   --tool-call-parser qwen3_coder   --gpu-memory-utilization 0.85   "
             "--tensor-parallel-size 8 --reasoning-parser qwen3   --max-model-len 50000   --port 8081\n")

# https://github.com/vllm-project/vllm/issues/28411 (issue body), the compose service verbatim: CUDA_VISIBLE_DEVICES
# lists eight GPUs for TP 8 with decode context parallel 8, which splits the TP group and adds no ranks.
COMPOSE_28411 = """  kimi-k2-thinking:
    image: vllm/vllm-openai:nightly-e5e9067e61600eedd4e75bd1c512ec52872916aa
    container_name: kimi-k2-thinking
    restart: unless-stopped
    network_mode: host
    ipc: host
    privileged: true
    shm_size: 256g
    entrypoint: ["vllm",
      "serve", "/data00/Kimi-K2-Thinking",
      "--gpu-memory-utilization", "0.9",
      "--tensor-parallel-size", "8",
      "--decode-context-parallel-size", "8",
      # For compatiblity test
      "--served-model-name", "Kimi-K2-Thinking",
      "--enable-auto-tool-choice",
      "--tool-call-parser", "kimi_k2",
      #"--reasoning-parser", "kimi_k2",
      "--trust-remote-code",
      "--max-num-seq", "16",
      "--max-num-batched-tokens", "32768",
      #"--kv-cache-dtype", "fp8",

      "--swap-space", "64",
      "--disable-custom-all-reduce"
    ]
    environment:
        - CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
        #- PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
        #- OMP_NUM_THREADS=90
        #- MKL_NUM_THREADS=90
        #- TORCH_NUM_THREADS=90
    security_opt:
      - seccomp:unconfined
    stdin_open: true
"""

# https://github.com/vllm-project/vllm/issues/23814 (issue body), the compose file verbatim: TP 8 x PP 2 with
# `gpus: all` and a device reservation without a count: nothing bounds the GPUs, so nothing is judged.
COMPOSE_23814 = """services:
  vllm-openai:
   # image: vllm/vllm-openai:v0.9.2
    build: .
    ports:
      - "8000:8000"
    deploy:
      resources:
        reservations:
          devices:
            - capabilities: [gpu]
    command: >
      --model Qwen/Qwen3-30B-A3B-Instruct-2507
      --host 0.0.0.0
      --port 8000
      --swap-space 2
      --tensor-parallel-size 8
      --pipeline-parallel-size 2
      --gpu-memory-utilization 0.85
      --enable-auto-tool-choice
      --tool-call-parser xlam
      --middleware middlewares.tracing.phoenix_middleware

    environment:
      - HUGGING_FACE_HUB_TOKEN= ${HUGGING_FACE_HUB_TOKEN}
      - VLLM_LOGGING_LEVEL=ERROR
      - PHOENIX_API_KEY=${PHOENIX_API_KEY}
      - CUDA_LAUNCH_BLOCKING=1
    runtime: nvidia
    volumes:
      - ~/.cache/huggingface:/root/.cache/huggingface
      - ./middlewares:/vllm-workspace/middlewares
    gpus: all
    ipc: host
    shm_size: 64g
"""


def _containers(text: str) -> tuple[DockerContainer, ...]:
    return tuple(fact(MemoryHost(recognise(text).record), "docker_containers").containers)


def test_real_specs_with_enough_gpus_do_not_fire() -> None:
    for text in (RUN_3710, POD_4462, RUN_2773, RUN_27251, COMPOSE_28411):
        status, message = _judge(text)
        assert status != "issue" and "more GPUs than" not in message, message
    # The bound is read (the device ids, the variable's entries) and equals the ranks: not beyond it.
    for text, gpus in ((RUN_2773, 2), (RUN_27251, 8), (COMPOSE_28411, 8)):
        (container,) = _containers(text)
        assert container.gpus_visible_at_most == gpus and container.ranks_beyond_gpus is None, text[:40]


def test_real_spec_without_a_bound_is_not_judged() -> None:
    (container,) = _containers(COMPOSE_23814)
    assert container.gpus_visible_at_most is None and container.ranks_beyond_gpus is None
    status, message = _judge(COMPOSE_23814)
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
