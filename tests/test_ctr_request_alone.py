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


def test_a_command_typed_inside_counts_by_its_answer(tmp_path: Path) -> None:
    # Corpus 2874 (both blind readers: unknown): an engine typed at the container's prompt that fails importing its
    # Python module before any CUDA call shows nothing of the GPU; 229's `nvidia-smi --version` read the loaded driver
    # there (ok). Modelled: the same shapes, another image and another failure.
    assert capture_checks("2874", ACCESS)[ACCESS].status == "unknown"
    run = "$ docker run --rm -it --gpus all pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime bash\n"
    failed = run + ("root@5c1e0a2b9f31:/workspace# python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B\n"
                    "ModuleNotFoundError: No module named 'sglang'\n")
    assert paste_checks(tmp_path, failed, ACCESS)[ACCESS].status == "unknown"
    version = run + ("root@5c1e0a2b9f31:/workspace# nvidia-smi --version\nNVIDIA-SMI version  : 570.133.20\n"
                     "NVML version        : 570.133\nDRIVER version      : 570.133.20\nCUDA Version        : 12.8\n")
    assert paste_checks(tmp_path, version, ACCESS)[ACCESS].status == "ok"
    # Its answer cut away: the version typed shows nothing.
    assert paste_checks(tmp_path, run + "root@5c1e0a2b9f31:/workspace# nvidia-smi --version\n", ACCESS)[ACCESS].status \
        == "unknown"


# Modelled: NVIDIA's CUDA image banner as its entrypoint prints it, then the program's first line.
CUDA_BANNER = ("\n==========\n== CUDA ==\n==========\n\nCUDA Version 12.4.1\n\n"
               "Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.\n\n"
               "This container image and its contents are governed by the NVIDIA Deep Learning Container License.\n"
               "By pulling and using the container, you accept the terms and conditions of this license:\n"
               "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license\n\n"
               "A copy of this license is made available in this container at /NGC-DL-CONTAINER-LICENSE for your "
               "convenience.\n\n")
NO_DRIVER = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
             "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
             "   https://docs.nvidia.com/datacenter/cloud-native/ .\n\n")
PROGRAM = "Loading model from /models/mistral-7b-instruct.Q4_K_M.gguf\nStarting the server on port 8080\n"


def test_an_image_banner_run_to_the_program_shows_the_driver_inside(tmp_path: Path) -> None:
    # Corpus 2815 (the CUDA image's banner, then the server's lines; a log viewer's time between them), 2882 (Triton's
    # NGC banner, then its log) and 2086 (the NGC check reading the host driver's version): both readers ok. The
    # entrypoint's driver check prints its no-driver WARNING where libcuda or /dev/nvidiactl is missing.
    for prefix in ("2815", "2882", "2086"):
        assert capture_checks(prefix, ACCESS)[ACCESS].status == "ok", prefix
    assert paste_checks(tmp_path, RUN + CUDA_BANNER + PROGRAM, ACCESS)[ACCESS].status == "ok"
    assert paste_checks(tmp_path, CUDA_BANNER + PROGRAM, ACCESS)[ACCESS].status == "ok"
    # The WARNING shown: no driver reached the container.
    assert paste_checks(tmp_path, RUN + CUDA_BANNER + NO_DRIVER + PROGRAM, ACCESS)[ACCESS].status != "ok"
    # The banner cut before its end, or followed only by the command a wrapper echoes (corpus 2146, both readers
    # unknown; 2872 and 2880, cut inside the banner): its check's answer is not shown.
    assert paste_checks(tmp_path, RUN + CUDA_BANNER.split("This container")[0], ACCESS)[ACCESS].status == "unknown"
    echoed = CUDA_BANNER + "llama-cli -m /models/granite-code.gguf -ngl 99 -t 8\n"
    assert paste_checks(tmp_path, RUN + echoed, ACCESS)[ACCESS].status == "unknown"
    for prefix in ("2146", "2872", "2880"):
        assert capture_checks(prefix, ACCESS)[ACCESS].status == "unknown", prefix
    # A `CUDA Version 12.4.1` line alone, without the banner's frame, is no banner.
    bare = RUN + "CUDA Version 12.4.1\n" + PROGRAM
    assert paste_checks(tmp_path, bare, ACCESS)[ACCESS].status == "unknown"


def test_the_engine_reading_the_gpu_in_the_container(tmp_path: Path) -> None:
    # Corpus 2871 (both readers: ok): vLLM's dtype check names the GPU and the compute capability it read inside the
    # NIM container; 1334: ggml's pinned host buffer refused for memory, which the CUDA runtime answers once started.
    assert capture_checks("2871", ACCESS)[ACCESS].status == "ok"
    assert capture_checks("1334", ACCESS)[ACCESS].status == "ok"
    refused = ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
               "T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the `dtype` flag "
               "in CLI, for example: --dtype=half.\n")
    assert paste_checks(tmp_path, RUN + refused, ACCESS)[ACCESS].status == "ok"
    pinned = "WARNING: failed to allocate 512.00 MB of pinned memory: out of memory\n"
    assert paste_checks(tmp_path, RUN + pinned, ACCESS)[ACCESS].status == "ok"
    # The same buffer refused because CUDA could not start shows no runtime at work.
    unstarted = "WARNING: failed to allocate 512.00 MB of pinned memory: no CUDA-capable device is detected\n"
    assert paste_checks(tmp_path, RUN + unstarted, ACCESS)[ACCESS].status != "ok"


def test_dockers_refusal_with_a_spaced_colon(tmp_path: Path) -> None:
    # Corpus 2813 (both readers: issue): Portainer's one-line deployment error spaces the colon (`with capabilities :
    # [[gpu]]`); the container Compose was starting keeps naming its engine (ollama).
    result = capture_checks("2813", ACCESS, "CTR-SHM-SIZE")
    assert result[ACCESS].status == "issue" and result["CTR-SHM-SIZE"].status == "not-an-issue"
    line = ("failed to deploy a stack : vllm Pulling vllm Pulled Container vllm Starting Error response from daemon : "
            "could not select device driver \"nvidia\" with capabilities : [[gpu]]\n")
    assert paste_checks(tmp_path, COMPOSE + line, ACCESS)[ACCESS].status == "issue"
