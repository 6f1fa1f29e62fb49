"""A one-process server (Ollama, llama.cpp) leaves CTR-SHM-SIZE not an issue whatever its /dev/shm, shown or not.

Its size is judged against the work that shares it: one process with no tensor-parallel ranks barely uses /dev/shm,
so a pasted spec of such a server is judged even where its GPU request or its shm size is cut away or not written
(checks/ctr.py `_shm_containers`, `_one_process_server`). A multi-process engine at the same size stays an issue.
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
