"""Issue 28: what a container spec shows decides CTR-SHM-SIZE and CTR-CPU-LIMITS, not Docker's defaults alone.

A container that binds the host's /dev/shm at /dev/shm (`-v /dev/shm:/dev/shm`, `--mount type=bind`, a compose
bind, a Kubernetes hostPath) shares the host's tmpfs as `--ipc=host` does: Docker's 64 MiB is out of play.
A container whose command runs only a GPU check or a wait (`nvidia-smi`, `sleep 30; nvidia-smi`: the table
facts/docker.py DIAGNOSTIC_PROGRAMS) runs no engine, so an engine's /dev/shm and CPU needs do not apply to it.
The pastes are verbatim from the public threads named beside each; the counter-examples are modelled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts.container_specs import parse_compose, parse_docker_run, parse_k8s
from stackaudit.facts.docker import diagnostic_command, parse_docker_inspect
from stackaudit.importers.pasted import load_pasted
from test_ctr_facts import docker_object

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/huggingface/text-generation-inference/issues/1655 (swapnil3597, 2024-03-26): the 4-shard
# start that died with a bus error, with the host's /dev/shm bound in.
TGI_1655_SWAPNIL = (
    "docker run -d -v /dev/shm:/dev/shm --gpus all -e HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN -p 8080:80 "
    "-v $volume:/data ghcr.io/huggingface/text-generation-inference:latest --model-id $model --quantize awq "
    "--num-shard 4\n")
# https://github.com/docker/compose/issues/6691 (jonghwanhyeon, 2021-01-12): a GPU service that runs nvidia-smi.
COMPOSE_6691 = """\
services:
  docker-compose-now-supports-device-requests:
    image: nvidia/cuda:10.0-base
    command: nvidia-smi
    deploy:
      resources:
        reservations:
          devices:
            - capabilities:
              - gpu
"""
# https://github.com/docker/compose/pull/7929 (aiordache, 2020-11-13): the same test with a driver and a count.
COMPOSE_7929 = """\
services:
  test:
    image: nvidia/cuda
    command: nvidia-smi
    deploy:
      resources:
        reservations:
          devices:
          - 'driver': 'nvidia'
            'count': 1
            'capabilities': ['gpu', 'utility']
"""


def _judge(tmp_path: Path, text: str, name: str = "paste.txt", checks: tuple[str, ...] = ("CTR-SHM-SIZE",)
           ) -> dict[str, tuple[str, str]]:
    path = tmp_path / name
    path.write_text(text)
    res = run_checks(load_pasted([str(path)]), list(checks))
    return {c: (res[c].status, res[c].message) for c in checks}


# --- the host's /dev/shm bound in ------------------------------------------------------------------


def test_a_bound_host_dev_shm_is_the_hosts_size_not_dockers_default(tmp_path: Path) -> None:
    status, message = _judge(tmp_path, TGI_1655_SWAPNIL)["CTR-SHM-SIZE"]
    assert status == "ok" and "its size is not in this source" in message, message
    assert "binds the host's /dev/shm" in message and "64 MiB" not in message


def test_corpus_285_no_longer_reports_dockers_default() -> None:
    # huggingface/text-generation-inference#1655 (abhishekmathada): the same bind on another reporter's host.
    r = run_checks(load_pasted([str(next(CAPTURES.glob("285-*.txt")))]), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
    assert r.status == "ok" and "binds the host's /dev/shm" in r.message


@pytest.mark.parametrize("spec", [
    "docker run --gpus all --mount type=bind,source=/dev/shm,target=/dev/shm vllm/vllm-openai:latest --tensor-parallel-size 2",
    "docker run --gpus all -v /dev/shm:/dev/shm:rw vllm/vllm-openai:latest --tensor-parallel-size 2",
])
def test_bind_spellings_of_docker_run(spec: str) -> None:
    # Modelled from Docker's documented `--mount` and `-v` syntax.
    assert parse_docker_run(spec).host_shm


@pytest.mark.parametrize("spec", [
    "docker run --gpus all -v /data/shm:/dev/shm vllm/vllm-openai:latest",  # another host directory
    "docker run --gpus all -v /dev/shm:/host-shm vllm/vllm-openai:latest",  # mounted elsewhere
    "docker run --gpus all --mount type=tmpfs,target=/dev/shm vllm/vllm-openai:latest",  # not the host's
])
def test_other_mounts_are_not_the_hosts_dev_shm(spec: str) -> None:
    # Modelled counter-examples: the container's /dev/shm stays its own.
    assert not parse_docker_run(spec).host_shm


def test_compose_and_kubernetes_binds() -> None:
    # Modelled: the compose short and long syntax and a Kubernetes hostPath volume mounted at /dev/shm.
    (short,) = parse_compose("services:\n  s:\n    image: vllm/vllm-openai\n    volumes:\n      - /dev/shm:/dev/shm\n")
    (long,) = parse_compose("services:\n  s:\n    image: vllm/vllm-openai\n    volumes:\n      - type: bind\n"
                            "        source: /dev/shm\n        target: /dev/shm\n")
    (pod,) = parse_k8s("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: v\n    image: vllm/vllm-openai\n"
                       "    volumeMounts:\n    - name: shm\n      mountPath: /dev/shm\n  volumes:\n  - name: shm\n"
                       "    hostPath:\n      path: /dev/shm\n")
    assert short.host_shm and long.host_shm and pod.host_shm


def test_docker_inspect_binds_and_mounts() -> None:
    # Modelled: `docker inspect` records a bind in HostConfig.Binds and in Mounts.
    binds = docker_object(gpus=1)
    binds["HostConfig"]["Binds"] = ["/dev/shm:/dev/shm"]
    mounts = docker_object(gpus=1)
    mounts["Mounts"] = [{"Type": "bind", "Source": "/dev/shm", "Destination": "/dev/shm"}]
    plain = docker_object(gpus=1)
    a, b, c = parse_docker_inspect(json.dumps([binds, mounts, plain]))
    assert a.host_shm and b.host_shm and not c.host_shm


# --- containers that only run a GPU check ---------------------------------------------------------


@pytest.mark.parametrize("text", [COMPOSE_6691, COMPOSE_7929], ids=["compose-6691", "compose-7929"])
def test_a_gpu_service_that_runs_nvidia_smi_has_no_shm_need(tmp_path: Path, text: str) -> None:
    status, message = _judge(tmp_path, text, "compose.yaml")["CTR-SHM-SIZE"]
    assert status == "not-applicable", message
    assert "nvidia-smi" in message


def test_corpus_273_test_pod_runs_only_sleep_and_nvidia_smi() -> None:
    # NVIDIA/k8s-device-plugin#145: a Guaranteed pod of 1 CPU that runs `sleep 30; nvidia-smi`.
    res = run_checks(load_pasted([str(next(CAPTURES.glob("273-*.txt")))]), ["CTR-SHM-SIZE", "CTR-CPU-LIMITS"])
    assert res["CTR-SHM-SIZE"].status == "not-applicable"
    assert res["CTR-CPU-LIMITS"].status == "not-an-issue" and "1 CPUs" in res["CTR-CPU-LIMITS"].message


def test_corpus_708_cuda_sample_container_is_not_applicable() -> None:
    # NVIDIA/nvidia-docker#1711: `docker run --gpus=all nvcr.io/nvidia/k8s/cuda-sample:nbody nbody -gpu -benchmark`.
    res = run_checks(load_pasted([str(next(CAPTURES.glob("708-*.txt")))]), ["CTR-SHM-SIZE"])
    assert res["CTR-SHM-SIZE"].status == "not-applicable", res["CTR-SHM-SIZE"].message
    assert "nbody" in res["CTR-SHM-SIZE"].message


def test_an_engine_service_is_still_judged(tmp_path: Path) -> None:
    # Modelled counter-example: the same service running vLLM at TP 2 keeps Docker's 64 MiB issue.
    text = COMPOSE_7929.replace("command: nvidia-smi", "command: python3 -m vllm.entrypoints.openai.api_server "
                                "--tensor-parallel-size 2")
    status, message = _judge(tmp_path, text, "compose.yaml")["CTR-SHM-SIZE"]
    assert status == "issue" and "64 MiB" in message


@pytest.mark.parametrize(("argv", "diagnostic"), [
    (("nvidia-smi",), True),
    (("/bin/bash", "-c", "sleep 30; nvidia-smi"), True),
    (("sh", "-c", "nvidia-smi && sleep infinity"), True),
    (("nbody", "-gpu", "-benchmark"), True),  # a CUDA sample: one process that exits (corpus 708)
    (("bash",), False),  # an interactive shell may run anything
    (("sh", "-c", "nvidia-smi; python train.py"), False),
    (("python3", "-m", "vllm.entrypoints.openai.api_server"), False),
])
def test_diagnostic_commands(argv: tuple[str, ...], diagnostic: bool) -> None:
    assert diagnostic_command(argv) is diagnostic


# --- all TP ranks in one container --------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "size"), [
    ("127", 4),  # vllm-project/vllm: one `docker run` of vLLM at TP 4 on 4 RTX 3090 Ti
    ("259", 4),  # a compose service of vLLM at TP 4 holding all 4 GPUs
    ("224", 2),  # one `docker run` of vLLM 0.6.3 at TP 2 on 2 A10
    ("72", 4),  # a one-line Kubernetes deployment of vLLM at TP 4
    ("248", 8),  # h2oai/h2ogpt#295: one `docker run` of TGI 0.8.2 with --num-shard=8
    ("250", 2),  # huggingface/text-generation-inference#540: compose services of TGI with --num_shard 2
    ("285", 4),  # huggingface/text-generation-inference#1655: one `docker run` of TGI with --num-shard 4
    ("300", 4),  # huggingface/text-generation-inference#405: a k8s Deployment of TGI with NUM_SHARD=4 in its env
])
def test_one_container_holding_every_rank_is_ok(prefix: str, size: int) -> None:
    path = next(CAPTURES.glob(f"{prefix}-*.txt"))
    r = run_checks(load_pasted([str(path)]), ["CTR-IPC-ISOLATION"])["CTR-IPC-ISOLATION"]
    assert r.status == "ok", r.message
    assert f"TP x PP = {size}" in r.message


@pytest.mark.parametrize(("argv", "status"), [
    ("--tensor-parallel-size 1", "not-applicable"),  # one rank: nothing to split
    ("--pipeline-parallel-size 2 --distributed-executor-backend ray", "not-applicable"),  # Ray may place ranks elsewhere
    ("--tensor-parallel-size 2", "ok"),
    ("--num-shard 1", "not-applicable"),  # TGI with one shard (corpus 247): one rank
    ("--num-shard 2", "ok"),
])
def test_one_container_counter_examples(tmp_path: Path, argv: str, status: str) -> None:
    # Modelled on corpus 224's line: what the engine's own flags say decides it.
    text = f"docker run --gpus all --shm-size 8g vllm/vllm-openai:v0.6.3 --model m {argv}\n"
    assert _judge(tmp_path, text, checks=("CTR-IPC-ISOLATION",))["CTR-IPC-ISOLATION"][0] == status


# --- pod spec pieces ------------------------------------------------------------------------------

# https://github.com/InftyAI/llmaz/issues/73 (kerthcet): a lone volumeMounts list, no volume behind it.
LLMAZ_73 = """\
    volumeMounts:
    - mountPath: /dev/shm
      name: dshm
"""


@pytest.mark.parametrize("prefix", ["274", "249"])
def test_pod_spec_pieces_are_read_as_excerpts(prefix: str) -> None:
    # vllm-project/production-stack#44 (a Helm template's volumeMounts beside its volumes, with a placeholder) and
    # NVIDIA/nccl#525 (a proposed `spec:` with a memory emptyDir mounted at /dev/shm).
    text = next(CAPTURES.glob(f"{prefix}-*.txt")).read_text().split("verbatim -----\n", 1)[1]
    (pod,) = parse_k8s(_pod_manifest(text))
    assert pod.excerpt and pod.shm_size == (20 * 1024**3 if prefix == "274" else None)


def _pod_manifest(text: str) -> str:
    from stackaudit.importers.container_specs import _pod_fragment

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(("volumeMounts:", "spec:")))
    found = _pod_fragment(lines, start)
    assert found is not None
    return found[2]


def test_corpus_274_piece_leaves_gpu_access_unknown() -> None:
    r = run_checks(load_pasted([str(next(CAPTURES.glob("274-*.txt")))]), ["CTR-GPU-ACCESS"])["CTR-GPU-ACCESS"]
    assert r.status == "unknown" and "piece" in r.message


def test_a_lone_volume_mounts_list_is_no_pod() -> None:
    from stackaudit.importers.container_specs import _pod_fragment

    lines = LLMAZ_73.splitlines()
    assert _pod_fragment(lines, 0) is None


# --- a docker run between quotes in a sentence ------------------------------------------------------


@pytest.mark.parametrize(("line", "image", "argv"), [
    # NVIDIA/nvidia-container-toolkit#115 (corpus 264)
    ("run command “sudo docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi”", "ubuntu", ("nvidia-smi",)),
    # OpenDroneMap WebODM's GPU notes (a public repository's document)
    ("    run “docker run --gpus all nvcr.io/nvidia/k8s/cuda-sample:nbody 21 nbody -gpu -benchmark”",
     "nvcr.io/nvidia/k8s/cuda-sample:nbody", ("21", "nbody", "-gpu", "-benchmark")),
    # a 3D Slicer forum question about SlicerNNInteractive's server
    ("Currently after typing the command “docker run --gpus all --rm -it -p 1527:1527 "
     "coendevente/nninteractive-slicer-server:latest” the prompt goes to a new line and nothing happens",
     "coendevente/nninteractive-slicer-server:latest", ()),
])
def test_a_quoted_docker_run_is_read_to_its_closing_quote(line: str, image: str, argv: tuple[str, ...]) -> None:
    c = parse_docker_run(line)
    assert (c.image, c.argv) == (image, argv) and c.gpu_requested


@pytest.mark.parametrize("line", [
    'the output is "docker run failed" again',  # modelled: quoted words, no options
    "run “docker run --gpus all ubuntu nvidia-smi",  # modelled: the closing quote is cut
])
def test_quoted_words_that_are_no_command(line: str) -> None:
    from stackaudit.facts._parse import ParseError

    with pytest.raises(ParseError):
        parse_docker_run(line)


# --- /dev/shm matters only where shared-memory work is shown ------------------------------------------

# https://github.com/nvidia-cosmos/cosmos-transfer2.5/pull/13 (the README's run line before the PR).
COSMOS_13 = "docker run --gpus all --rm -v .:/workspace -v /workspace/.venv -it cosmos-transfer-2.5\n"


@pytest.mark.parametrize("source", ["190", "229", "cosmos"])
def test_docker_default_is_a_note_where_no_shared_memory_work_is_shown(tmp_path: Path, source: str) -> None:
    # psalias2006/gpu-hot (corpus 190: a GPU monitor), a `docker run … bash` session (corpus 229) and the
    # cosmos-transfer README line: Docker's 64 MiB, but no engine, TP size or multi-GPU request.
    if source == "cosmos":
        status, message = _judge(tmp_path, COSMOS_13)["CTR-SHM-SIZE"]
    else:
        r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{source}-*.txt")))]), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
        status, message = r.status, r.message
    assert status == "not-an-issue", message
    assert "matters only if a multi-process engine" in message


@pytest.mark.parametrize("prefix", ["193", "51"])
def test_a_symptom_still_proves_the_issue(prefix: str) -> None:
    # NVIDIA/nccl#290 (a TF container, NCCL's posix_fallocate failure) and corpus 51 (NCCL's segment error).
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{prefix}-*.txt")))]), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
    assert r.status == "issue" and "NCCL" in r.message


@pytest.mark.parametrize("flags", ["--gpus 2", "--gpus all -e NCCL_DEBUG=INFO"])
def test_shown_work_keeps_the_issue(tmp_path: Path, flags: str) -> None:
    # Modelled counter-examples: two GPUs requested, or an engine run with tensor parallelism, show work that shares
    # memory (an engine at its default of one rank does not: test_one_rank_engine_shm.py).
    image = "vllm/vllm-openai:latest --model m --tensor-parallel-size 2" if "NCCL" in flags else "cosmos-transfer-2.5"
    status, message = _judge(tmp_path, f"docker run {flags} --rm -it {image}\n")["CTR-SHM-SIZE"]
    assert status == "issue" and "64 MiB" in message


@pytest.mark.parametrize(("env", "status"), [("1", "not-applicable"), ("4", "ok")])
def test_tgi_num_shard_from_the_environment(tmp_path: Path, env: str, status: str) -> None:
    # Modelled on corpus 300: TGI's launcher takes --num-shard from NUM_SHARD.
    text = f"docker run --gpus all --shm-size 1g -e NUM_SHARD={env} ghcr.io/huggingface/text-generation-inference:2.0 --model-id m\n"
    assert _judge(tmp_path, text, checks=("CTR-IPC-ISOLATION",))["CTR-IPC-ISOLATION"][0] == status


# --- ranks an NCCL log shows joined through SHM / P2P ---------------------------------------------


@pytest.mark.parametrize(("prefix", "ranks"), [
    ("288", "0, 1, 2, 3"),  # vllm-project/vllm#6407: vLLM TP 4, SHM/direct and P2P/IPC/read on one host
    ("193", "0, 1, 2, 3"),  # NVIDIA/nccl#290: four ranks in one TensorFlow container
    ("283", "0, 1"),  # deepspeedai/DeepSpeed#1283: P2P refused, SHM between the two ranks
    ("205", "153, 154, 155, 157"),  # NVIDIA/nccl#302: one node's ranks of a multi-node job, P2P/IPC rings
])
def test_ranks_joined_through_shm_or_p2p_share_ipc(prefix: str, ranks: str) -> None:
    path = next(CAPTURES.glob(f"{prefix}-*.txt"))
    r = run_checks(load_pasted([str(path)]), ["CTR-IPC-ISOLATION"])["CTR-IPC-ISOLATION"]
    assert r.status == "ok", r.message
    assert f"ranks {ranks} of one host" in r.message


# Modelled on 288's lines: ranks of one host that NCCL joins over NET (split IPC namespaces), or two hosts, each
# joining its own ranks over SHM (one namespace per host), or one of them over NET (split on that host).
_NET_SPLIT = ("HOST:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0\n"
              "HOST:1:3 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via NET/Socket/0\n")
_TWO_HOSTS = ("nodeA:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
              "nodeB:1:3 [0] NCCL INFO Channel 00 : 2[0] -> 3[1] via SHM/direct/direct\n")


@pytest.mark.parametrize(("text", "status"), [
    (_NET_SPLIT, "unknown"),
    (_TWO_HOSTS, "ok"),
    (_TWO_HOSTS.replace("2[0] -> 3[1] via SHM/direct/direct", "2[0] -> 3[1] via NET/Socket/0"), "unknown"),
    (_NET_SPLIT.replace("NET/Socket/0", "SHM/direct/direct"), "ok"),  # the same lines, one namespace
])
def test_ranks_not_joined_through_shm_stay_open(tmp_path: Path, text: str, status: str) -> None:
    assert _judge(tmp_path, text, checks=("CTR-IPC-ISOLATION",))["CTR-IPC-ISOLATION"][0] == status
