"""CTR-GPU-ACCESS: a pasted spec's GPU request alone shows what is asked, not what reached the container (issue 28,
h121c). With nothing from the container's side (its engine's log, a command typed inside it, a program's CUDA at work)
and no GPU listing, the request is unknown; the blind pairs of readers read it so (corpus 1989, 2201, 2743, 2746, 2818:
both readers), and the older single readings that read ok from the request are gaps (tests/data/corpus_gaps.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from test_ctr_checks import docker_host, one
from test_ctr_facts import docker_object

ACCESS = "CTR-GPU-ACCESS"

# Modelled: a `docker run` of vLLM given every GPU, nothing else pasted.
RUN = ("docker run -d --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.9.2 "
       "--model Qwen/Qwen2.5-7B-Instruct\n")
# Modelled: an ollama compose service reserving one GPU (another form of the same request).
COMPOSE = ("services:\n  ollama:\n    image: ollama/ollama:0.6.6\n    deploy:\n      resources:\n"
           "        reservations:\n          devices:\n            - driver: nvidia\n              count: 1\n"
           "              capabilities: [gpu]\n")
# Modelled: a whole pod asking the device plugin for two GPUs.
POD = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n  containers:\n  - name: vllm\n"
       "    image: vllm/vllm-openai:v0.9.2\n    args: [\"--model\", \"Qwen/Qwen2.5-7B-Instruct\"]\n"
       "    resources:\n      limits:\n        nvidia.com/gpu: 2\n")
# Modelled: nvidia-smi typed in the container (`docker exec`), listing an L40S.
EXEC_SMI = ("$ docker exec -it vllm nvidia-smi -L\n"
            "GPU 0: NVIDIA L40S (UUID: GPU-6f3b0c55-2b1e-11ee-be56-0242ac120002)\n")
# Modelled: torch's out-of-memory message from the container's program (CUDA at work there).
TORCH_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
             "23.55 GiB of which 16.12 MiB is free.\n")


@pytest.mark.parametrize("prefix", ["1989", "2201", "2743", "2746", "2818"])
def test_corpus_requests_alone_are_unknown(prefix: str) -> None:
    # Both blind readers: the spec asks for GPUs, nothing from inside the container shows one reached it.
    result = capture_checks(prefix, ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "serving containers request GPUs:" in result.message and "nothing from the container's side" in result.message


@pytest.mark.parametrize("text", [RUN, COMPOSE, POD], ids=["docker-run", "compose", "pod"])
def test_modelled_request_alone_is_unknown_and_named(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "serving containers request GPUs:" in result.message and "docker exec" in (result.hint or "")


@pytest.mark.parametrize("text", [RUN, COMPOSE], ids=["docker-run", "compose"])
def test_nvidia_smi_typed_inside_or_cuda_at_work_shows_the_gpu(tmp_path: Path, text: str) -> None:
    assert paste_checks(tmp_path, text + EXEC_SMI, ACCESS)[ACCESS].status == "ok"
    assert paste_checks(tmp_path, text + "\n" + TORCH_OOM, ACCESS)[ACCESS].status == "ok"


def test_a_gpu_listing_beside_the_request_keeps_it_ok(tmp_path: Path) -> None:
    # Modelled: the host's `nvidia-smi -L` beside the run (corpus 2674's shape: both readers read ok).
    listing = "$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-6f3b0c55-2b1e-11ee-be56-0242ac120002)\n"
    assert paste_checks(tmp_path, listing + RUN, ACCESS)[ACCESS].status == "ok"
    assert capture_checks("2674", ACCESS)[ACCESS].status == "ok"


def test_cuda_at_work_in_a_gpu_container_that_is_no_engine() -> None:
    # Corpus 2670 (a speech-to-text compose given every GPU, torch's out-of-memory on GPU 0) and 2671 (CTranslate2's
    # out of memory in a whisper service): CUDA ran in the container the spec gives GPUs, whatever it serves.
    for prefix in ("2670", "2671"):
        result = capture_checks(prefix, ACCESS)[ACCESS]
        assert result.status == "ok" and "in the container" in result.message, (prefix, result.message)


def test_a_whole_docker_inspect_is_the_daemons_record(tmp_path: Path) -> None:
    # A `docker inspect` of a container the daemon runs (no spec origin): its requests were set up at its start, since
    # a request the runtime cannot meet fails the start. It keeps its ok; the projection of one key is a spec's piece.
    assert one(docker_host(docker_object()), ACCESS).status == "ok"
    projected = ("$ docker inspect ollama | jq '.[0].HostConfig.DeviceRequests'\n[\n  {\n    \"Driver\": \"nvidia\",\n"
                 "    \"Count\": 1,\n    \"DeviceIDs\": null,\n    \"Capabilities\": [\n      [\n        \"gpu\"\n"
                 "      ]\n    ],\n    \"Options\": null\n  }\n]\n")
    assert paste_checks(tmp_path, projected, ACCESS)[ACCESS].status == "unknown"


def test_cpu_words_keep_their_own_message() -> None:
    # Corpus 1809: a compose reservation and the user's `using CPU instead of GPU`: the words are quoted.
    result = capture_checks("1809", ACCESS)[ACCESS]
    assert result.status == "unknown" and "runs on the CPU" in result.message


def test_collect_env_cuda_available_where_no_container_is_named(tmp_path: Path) -> None:
    # Corpus 2799 (both readers: ok): a collect_env whose torch initialised CUDA on an A800 (`Is CUDA available: True`),
    # the source naming no container: the GPU and the driver's CUDA library reached the process wherever it ran.
    result = capture_checks("2799", ACCESS)[ACCESS]
    assert result.status == "ok" and "Is CUDA available: True" in (result.evidence or ("",))[0], result.message
    # Modelled: the same report whose torch found no GPU shows nothing reaching it.
    report = ("PyTorch version: 2.4.0+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
              "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
              "Is CUDA available: {answer}\nCUDA runtime version: 12.4.131\n"
              "GPU models and configuration: GPU 0: NVIDIA L40S\nNvidia driver version: 550.54.15\n")
    assert paste_checks(tmp_path, report.format(answer="True"), ACCESS)[ACCESS].status == "ok"
    assert paste_checks(tmp_path, report.format(answer="False"), ACCESS)[ACCESS].status != "ok"


def test_nvidia_smi_typed_inside_counts_by_its_answer(tmp_path: Path) -> None:
    # Corpus 329 cut after its third line: `nvidia-smi` typed at the container's prompt, its answer cut away, shows no
    # GPU there; with a GPU row it lists the GPU (ok); another command typed there (`nvidia-smi --version`, an engine)
    # is the container's own side (corpus 229).
    run = "$ docker run -it --gpus=all ubuntu:22.04\nroot@dcaedd872da8:/# nvidia-smi\n"
    assert paste_checks(tmp_path, run, ACCESS)[ACCESS].status == "unknown"
    listed = run.replace("# nvidia-smi\n", "# nvidia-smi -L\nGPU 0: NVIDIA B200 (UUID: GPU-6f3b0c55-2b1e-11ee-be56-0242ac120002)\n")
    assert paste_checks(tmp_path, listed, ACCESS)[ACCESS].status == "ok"
    assert capture_checks("229", ACCESS)[ACCESS].status == "ok"
