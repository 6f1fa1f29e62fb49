"""A one-process server (Ollama, llama.cpp) leaves CTR-SHM-SIZE not an issue whatever its /dev/shm, shown or not.

Its size is judged against the work that shares it: one process with no tensor-parallel ranks barely uses /dev/shm,
so a pasted spec of such a server is judged even where its GPU request or its shm size is cut away or not written
(checks/ctr.py `_shm_containers`, `_one_process_server`). A multi-process engine at the same size stays an issue.
Where no container spec is pasted, the engines the paste shows decide it (facts/applicability.one_process_engine):
every one of them a one-process server (ONE_PROCESS_ENGINES), with no command splitting its model over GPUs
(SPLIT_OVER_GPUS), is not an issue whatever the container; another engine, or a tensor split, leaves it open.
Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/ollama/ollama/issues/3417 (the GPU request is in an .env the compose reads, not in the service)
OLLAMA_3417 = """\
docker-compose.yml

```
version: "3.8"
services:
## Ollama
  llm:
    image: 'ollama/ollama:${LLM_TAG}'
    container_name: '${LLM_NAME}'
    hostname: '${LLM_NAME}'
    ports:
      - 11434:11434
    env_file:
      - .env
    volumes:
      - ./llm:/root/.ollama
    restart: 'always'
```
"""

# https://github.com/ggml-org/llama.cpp/issues/4884 (one GPU reserved, no shm_size: Docker's 64 MiB)
LLAMA_CPP_4884 = """\
```yaml
services:
  llamacpp:
    container_name: llamacpp
    image: ghcr.io/ggerganov/llama.cpp:full-cuda
    environment:
      - PUID=1014
      - PGID=1017
    volumes:
      - ./llamacpp/models:/models
    ports:
      - "2080:2080"
    command: "-s -m /models/openhermes-2.5-mistral-7b.Q5_K_M.gguf -a llm -c 4096 -ngl 33 --port 2080"
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
    restart: unless-stopped
```
"""


def test_an_ollama_service_cut_at_its_reservation_is_not_an_issue() -> None:
    # corpus 163 (ollama/ollama#6364): the service ends at `reservations:`; was unknown.
    res = capture_checks("163", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue"
    assert "not shown (the spec is cut)" in res.message and "one process" in res.message


def test_an_ollama_service_without_a_gpu_request_is_not_an_issue(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, OLLAMA_3417, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue"
    assert "ShmSize 64 MiB" in res.message


def test_a_llama_cpp_service_at_docker_default_is_not_an_issue(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, LLAMA_CPP_4884, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue"
    assert "llamacpp" in res.message


def test_a_multi_process_engine_at_the_same_size_is_an_issue(tmp_path: Path) -> None:
    # Modelled: llama.cpp#4884's service running vLLM at TP 2 on two GPUs, no shm_size (Docker's 64 MiB).
    text = ("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
            "    command: --model Qwen/Qwen2-7B --tensor-parallel-size 2\n    deploy:\n      resources:\n"
            "        reservations:\n          devices:\n            - driver: nvidia\n              count: 2\n"
            "              capabilities: [gpu]\n")
    assert paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "issue"


# https://github.com/ggml-org/llama.cpp/issues/23811 (Hukumms, 2026-05-28): llama.cpp in the user's words, one GPU,
# and the kernel's line of its crash.
LLAMA_CPP_23811 = """\
Hi I am running llamacpp server with gpu and ram (hybrid) to compensate my low gpu vram. Model starts without any issue but sometimes during prompt processing or in mid agentic work crash happens, like when context reaches 30k+. using these parameters:

[ 1204.123584] NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 2, TPC 0, SM 0): Illegal Instruction Encoding
"""


def test_a_pasted_one_process_engine_is_not_an_issue_whatever_the_container(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, LLAMA_CPP_23811, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue", res.message
    assert "one process" in res.message and "in a container or not" in res.message


def test_one_process_engines_from_three_threads_are_not_an_issue() -> None:
    # 731: llama.cpp#23811 (the user's words); 455: llama.cpp#14201 (a llama-server command and ggml's device list);
    # 1212: ollama#1651 (nvidia-smi and the user's question). Each was unknown: whether it ran in a container.
    # (244, ollama's lines in the host's journal, is a systemd service of the machine: not applicable, h86b.)
    for prefix, engine in (("731", "llama.cpp"), ("455", "llama.cpp"), ("1212", "ollama")):
        res = capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert res.status == "not-an-issue", (prefix, res.message)
        assert engine in res.message


def test_a_llama_cpp_tensor_split_over_gpus_stays_open() -> None:
    # 736: llama.cpp#24324, `--split-mode tensor` over four V100 in a GGML_CUDA_NCCL build: NCCL may keep its
    # shared-memory transport's buffers in /dev/shm, and whether it ran in a container is not shown.
    assert capture_checks("736", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_a_one_process_engine_beside_a_multi_process_one_stays_open(tmp_path: Path) -> None:
    # Modelled: the same sentence beside a vLLM command at TP 2.
    text = LLAMA_CPP_23811 + "\nvllm serve Qwen/Qwen2-7B --tensor-parallel-size 2\n"
    assert paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_a_launcher_that_starts_engines_later_leaves_shm_unknown(tmp_path: Path) -> None:
    # Corpus 976 (xorbitsai/inference#2186): `xinference-local` at Docker's 64 MiB starts each model's engine later,
    # with its own tensor parallelism: neither "not an issue" nor an issue.
    res = capture_checks("976", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "unknown"
    assert "launcher" in res.message
    # Modelled: GPUStack's server the same way.
    run = "$ docker run -d --gpus all --name gpustack gpustack/gpustack:latest\n"
    assert paste_checks(tmp_path, run, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_a_container_of_another_program_stays_not_an_issue(tmp_path: Path) -> None:
    # Modelled counter-example: a GPU container whose command is no launcher and shows no engine keeps its note.
    run = "$ docker run -d --gpus all --name app myorg/app:latest python3 app.py\n"
    assert paste_checks(tmp_path, run, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"


def test_tensor_parallelism_in_the_users_words_is_the_containers_workload(tmp_path: Path) -> None:
    # Corpus 982 (turboderp-org/exllamav3#76): TabbyAPI under podman at its 64 MiB default, and the user's sentence
    # "the tensor parallelism does not work at all".
    res = capture_checks("982", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "issue"
    assert "tensor parallelism" in res.message
    # Modelled counter-example: a sentence that rules tensor parallelism out states no split.
    text = ("I run the model without tensor parallelism on one card and it is slow.\n"
            "$ docker run -d --gpus all --name app myorg/app:latest python3 app.py\n")
    assert paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"


# https://github.com/ollama/ollama/issues/1666 (corpus 721): ollama 0.1.x's own probe messages behind the compose
# prefix, in Go's standard log format that no serving-log reader takes; only its GPU-probe line is a symptom.
OLLAMA_1666_LINE = ("ollama  | 2023/12/22 00:17:24 routes.go:915: warning: gpu support may not be enabled, check that "
                    "you have installed GPU drivers: nvidia-smi command failed\n")


def test_an_engines_own_symptom_line_shows_that_engine() -> None:
    # 721: the only lines naming ollama are its log lines (the user's "In the ollama logs:" is four words, no
    # sentence); was unknown (whether it ran in a container), the blind reading and 19 others like it: not-an-issue.
    res = capture_checks("721", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "not-an-issue", res.message
    assert "ollama runs each model in one runner process" in res.message


def test_an_engines_symptom_beside_a_multi_process_engine_stays_open(tmp_path: Path) -> None:
    # Modelled: the same ollama line beside a vLLM command at TP 2: not every engine shown serves from one process.
    text = OLLAMA_1666_LINE + "\nvllm serve Qwen/Qwen2-7B --tensor-parallel-size 2\n"
    assert paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_only_an_engines_own_messages_name_it() -> None:
    from stackaudit.facts.symptoms import LogSymptoms, find_symptoms

    assert LogSymptoms(find_symptoms([OLLAMA_1666_LINE.rstrip()])).engines() == ("ollama",)
    # Modelled: NCCL's own shared-memory failure names no serving engine.
    nccl = ("node:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment "
            "/dev/shm/nccl-vzIpS6 (size 9637888)")
    hits = find_symptoms([nccl])
    assert hits and LogSymptoms(hits).engines() == ()


def test_an_engines_own_symptom_line_decides_the_engine_subjects_too() -> None:
    # 721 as its siblings 1002 and 1009 (ollama's discovery in its newer log format): the only engine shown is ollama,
    # so the vLLM/SGLang and PyTorch subjects are not applicable; they were unknown.
    res = capture_checks("721", "RT-TORCH-ARCH", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE")
    for cid, r in res.items():
        assert r.status == "not-applicable", (cid, r.message)
        assert "the only engine the paste shows is ollama" in r.message


def test_a_launcher_given_one_gpu_runs_no_tensor_parallel_ranks(tmp_path: Path) -> None:
    # Corpus 1809 (mudler/LocalAI#1108) and 2157 (mudler/LocalAI#1109): LocalAI's compose service reserves one GPU
    # (`count: 1`) at Docker's 64 MiB: whatever engine it launches cannot split a model over GPUs.
    for prefix in ("1809", "2157"):
        res = capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert res.status == "not-an-issue" and "one GPU" in res.message, (prefix, res.message)
    # Modelled: Xinference's launcher given one GPU by its device; the same run with every GPU stays open.
    one = "$ docker run -d --gpus '\"device=0\"' -p 9997:9997 xprobe/xinference:latest xinference-local -H 0.0.0.0\n"
    assert paste_checks(tmp_path, one, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"
    every = one.replace("'\"device=0\"'", "all")
    assert paste_checks(tmp_path, every, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "unknown"


def test_embedding_servers_tei_and_infinity_are_one_process_servers() -> None:
    """Hugging Face's text-embeddings-inference (corpus 2668, 2674) and infinity (corpus 2677) serve from one process:
    Docker's default /dev/shm is not an issue (checks/ctr.py _ONE_PROCESS_SERVERS). 2668's entrypoint is overridden
    with `sleep infinity`, which names no infinity server."""
    for prefix in ("2668", "2674", "2677"):
        result = capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert result.status == "not-an-issue", (prefix, result.message)
        assert "serves from one process" in result.message, (prefix, result.message)


def test_modelled_sleep_infinity_names_no_infinity_server(tmp_path: Path) -> None:
    # Modelled: a CUDA image kept alive with `sleep infinity`, tensor parallelism asked of a vLLM inside later.
    run = ("docker run -d --gpus all --name work nvidia/cuda:12.4.1-devel-ubuntu22.04 sleep infinity\n"
           "docker exec work vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2\n")
    result = paste_checks(tmp_path, run, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert "serves from one process" not in result.message
