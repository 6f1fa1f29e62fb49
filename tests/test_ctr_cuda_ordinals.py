"""CTR-GPU-ACCESS: CUDA_VISIBLE_DEVICES inside a container naming an index at or past the number of GPUs the
container is given (`DockerContainer.cuda_ordinals_missing`, facts/docker.py). The runtime numbers a container's
GPUs from 0, so host indices copied into the container's CUDA_VISIBLE_DEVICES name devices it does not have."""

from __future__ import annotations

from stackaudit.engine.testing import run_checks
from stackaudit.facts.container_specs import containers_from_compose, containers_from_docker_run, parse_k8s
from stackaudit.importers.pasted import load_pasted
from test_ctr_ranks_beyond_gpus import CAPTURES, CHECK, _judge  # one judge of CTR-GPU-ACCESS over a paste


def test_capture_522_nvidia_visible_2_3_with_cuda_visible_2_3() -> None:
    """https://github.com/vllm-project/vllm/issues/9865 (comment by jacethemagician): NVIDIA_VISIBLE_DEVICES=2,3 gives
    the container two GPUs, numbered 0 and 1 inside, and --env CUDA_VISIBLE_DEVICES=2,3 names neither."""
    path = next(CAPTURES.glob("522-*.txt"))
    r = run_checks(load_pasted([str(path)]), [CHECK])[CHECK]
    assert r.status == "issue", r.message
    assert "CUDA_VISIBLE_DEVICES=2,3 names GPUs that DeepSeek-R1-Distill-Llama-70B does not have (2 GPUs given, numbered 0-1 inside)" in r.message
    assert r.actual == {"DeepSeek-R1-Distill-Llama-70B": "2,3"}


# https://github.com/devitocodes/devito/pull/2710 (description by ggorman, 2025-08-12): the CI's
# `--gpus "device=${CUDA_VISIBLE_DEVICES:-all}" --env CUDA_VISIBLE_DEVICES` with CUDA_VISIBLE_DEVICES=1, as the
# description expands it ("the runtime only sees a single GPU device with device ID 0").
RUN_DEVITO = """docker run --rm --gpus "device=1" --env CUDA_VISIBLE_DEVICES=1 devito-gpu pytest -m parallel tests/
"""


def test_devito_device_1_with_cuda_visible_1() -> None:
    (c,) = containers_from_docker_run(RUN_DEVITO).containers
    assert c.gpu_count == 1 and c.cuda_ordinals_missing == (1,)
    status, message = _judge(RUN_DEVITO)
    assert status == "issue", message
    assert "CUDA_VISIBLE_DEVICES=1 names GPUs that devito-gpu does not have (1 GPU given, numbered 0-0 inside)" in message


# https://github.com/Yuliang-Liu/MonkeyOCR/issues/204 (description by sleepy-duo, 2025-07-15), under `services:`:
# host GPU 1 given as the container's only GPU and CUDA_VISIBLE_DEVICES=0 inside, the right way: must not fire.
COMPOSE_MONKEYOCR = """services:
  monkeyocr-api:
    image: monkeyocr:latest
    command: uvicorn api.main:app --host 0.0.0.0 --port 7861
    environment:
      - TMPDIR=/app/tmp
      - NVIDIA_VISIBLE_DEVICES=1
      - CUDA_VISIBLE_DEVICES=0
      - HF_HUB_CACHE=/app/MonkeyOCR/model_weight
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
"""


def test_monkeyocr_one_gpu_cuda_visible_0_is_fine() -> None:
    (c,) = containers_from_compose(COMPOSE_MONKEYOCR).containers
    assert c.gpu_count == 1 and c.cuda_ordinals_missing == ()
    status, message = _judge(COMPOSE_MONKEYOCR)
    assert "does not have" not in message, message
    assert status != "issue", message


def test_capture_91_gpus_all_does_not_bound_the_indices() -> None:
    """https://github.com/vllm-project/vllm/issues/3710: `--gpus all` gives the host's GPUs, whose count the paste
    does not show, so CUDA_VISIBLE_DEVICES=0,1 is not judged against it."""
    path = next(CAPTURES.glob("91-*.txt"))
    r = run_checks(load_pasted([str(path)]), [CHECK])[CHECK]
    # No issue of its indices: the request is read, and alone it shows no GPU inside (unknown, issue 28 h121c).
    assert r.status == "unknown" and "request GPUs: vllm_d (all)" in r.message, r.message


# Modelled: the same two host GPUs, with CUDA_VISIBLE_DEVICES naming them as the container numbers them.
RUN_RIGHT = """docker run -d --gpus '"device=2,3"' -e CUDA_VISIBLE_DEVICES=0,1 --ipc=host vllm/vllm-openai:latest \\
  --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2
"""


def test_modelled_device_2_3_with_cuda_visible_0_1_is_fine() -> None:
    (c,) = containers_from_docker_run(RUN_RIGHT).containers
    assert c.cuda_ordinals_missing == ()
    status, message = _judge(RUN_RIGHT)
    assert status == "unknown" and "request GPUs:" in message and "does not have" not in message, message


# Modelled: compose device_ids ['2','3'] with the host indices copied into CUDA_VISIBLE_DEVICES.
COMPOSE_WRONG = """services:
  vllm:
    image: vllm/vllm-openai:latest
    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2
    ipc: host
    environment:
      - CUDA_VISIBLE_DEVICES=2,3
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ['2', '3']
              capabilities: [gpu]
"""


def test_modelled_compose_device_ids_2_3_with_cuda_visible_2_3() -> None:
    status, message = _judge(COMPOSE_WRONG)
    assert status == "issue", message
    assert "CUDA_VISIBLE_DEVICES=2,3 names GPUs that vllm does not have (2 GPUs given" in message


# Modelled: one GPU from the device plugin, CUDA_VISIBLE_DEVICES=1 by hand.
POD_WRONG = """apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:latest
    args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]
    env:
    - name: CUDA_VISIBLE_DEVICES
      value: "1"
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def test_modelled_pod_one_gpu_with_cuda_visible_1() -> None:
    (c,) = parse_k8s(POD_WRONG)
    assert c.cuda_ordinals_missing == (1,)
    status, message = _judge(POD_WRONG)
    assert status == "issue", message


def test_uuids_and_privileged_are_not_judged() -> None:
    """Modelled: a UUID names a GPU wherever it sits; a privileged container sees every GPU of the host."""
    uuid = RUN_DEVITO.replace("CUDA_VISIBLE_DEVICES=1", "CUDA_VISIBLE_DEVICES=GPU-16a23983-e73e-0945-2095-cdeb50696982")
    (c,) = containers_from_docker_run(uuid).containers
    assert c.cuda_ordinals_missing == ()
    (p,) = containers_from_docker_run(RUN_DEVITO.replace("--rm", "--rm --privileged")).containers
    assert p.cuda_ordinals_missing == ()


def _compose_2655() -> str:
    """The compose file of corpus 2655 (YanWenKun/ComfyUI-Docker#60), without its fence: as pasted alone."""
    text = next(CAPTURES.glob("2655-*.txt")).read_text().split("everything below this line is the capture, "
                                                               "verbatim -----\n", 1)[1]
    return text.split("```yml\n", 1)[1].split("```", 1)[0]


def test_2655_compose_cuda_visible_all_leaves_cuda_no_device() -> None:
    """CUDA keeps only the devices before the first entry of CUDA_VISIBLE_DEVICES it cannot parse: `all` leaves none
    (DockerContainer.cuda_visible_none), though the runtime hands the GPU in. In the corpus file the test `docker run`
    beside it is the spec read (first_of), so this is the compose file pasted alone."""
    (c,) = containers_from_compose(_compose_2655()).containers
    assert c.gpu_requested and c.cuda_visible_none == "all"
    status, message = _judge(_compose_2655())
    assert status == "issue", message
    assert "CUDA_VISIBLE_DEVICES names no device CUDA can parse" in message and "CUDA_VISIBLE_DEVICES=all" in message


def test_modelled_cuda_visible_values_cuda_can_parse_or_hides_on_purpose() -> None:
    for value in ("0", "GPU-54048da8", "MIG-1f2e", "-1", "${CUDA_VISIBLE_DEVICES}", ""):
        compose = _compose_2655().replace("CUDA_VISIBLE_DEVICES: all", f"CUDA_VISIBLE_DEVICES: '{value}'")
        (c,) = containers_from_compose(compose).containers
        assert c.cuda_visible_none == "", value
    compose = _compose_2655().replace("      CUDA_VISIBLE_DEVICES: all\n", "")
    assert _judge(compose)[0] != "issue"


def test_2677_docker_run_without_request_told_device_cuda() -> None:
    """Corpus 2677 (michaelfeil/infinity#491): a whole docker run with no --gpus or nvidia runtime, whose command tells
    infinity `--device cuda` (and sets CUDA_VISIBLE_DEVICES='2'): CTR-GPU-ACCESS issue (DockerContainer.cuda_asked)."""
    path = next(CAPTURES.glob("2677-*.txt"))
    r = run_checks(load_pasted([str(path)]), [CHECK])[CHECK]
    assert r.status == "issue", r.message
    assert "--device cuda" in r.message and "michaelf34/infinity:0.0.72" in r.message


def test_modelled_cpu_device_or_gpu_request_is_no_missing_request() -> None:
    run = ("docker run -v $pwd/data:/app/.cache -p 7997:7997 michaelf34/infinity:0.0.72 v2 --model-id "
           "BAAI/bge-small-en-v1.5 --device cpu --port 7997\n")
    (c,) = containers_from_docker_run(run).containers
    assert c.cuda_asked == ""
    assert _judge(run)[0] != "issue"
    with_gpus = run.replace("docker run ", "docker run --gpus all ").replace("--device cpu", "--device cuda")
    (c,) = containers_from_docker_run(with_gpus).containers
    assert c.gpu_requested and c.cuda_asked == "--device cuda"
    assert "without any GPU request" not in _judge(with_gpus)[1]
