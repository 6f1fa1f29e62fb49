"""RT-ENV-VLLM from the settings a paste shows beside the engine where no process is read: the env file pasted
beside a compose file that names it (importers/container_specs._pasted_env_file, facts/container_specs._compose_env),
a whole compose service's `environment:`, and the variables set on a vLLM command line (checks/rt.vllm_env_findings).
CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous; vLLM's troubleshooting guide sets it to find a fault and
says to turn it off again (https://docs.vllm.ai/en/latest/usage/troubleshooting/).

Real pastes: corpus 839 (vllm#13100: a compose service with `env_file: vllm.env`, the env file pasted below it),
vllm#23814 (a compose service's `environment:` list), corpus 350 (vllm#14449: `CUDA_LAUNCH_BLOCKING=1 \\` in the
environment prefix of a `vllm serve` line), corpus 523 (vllm#14403: a whole compose service that sets no variable)
and corpus 259 (vllm#16841: a compose service pasted without its `services:` line). The counter-examples are
modelled from 839.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.container_specs import PASTED_ENV_FILES, parse_compose

# https://github.com/vllm-project/vllm/issues/23814 (issue body by seabnavin19): the compose file, verbatim.
COMPOSE_23814 = """docker-compose.yaml
```yaml
services:
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
```
"""


def _capture_839() -> str:
    text = next(CAPTURES_DIR.glob("839-*.txt")).read_text()
    return text.split("# ----- end of header; everything below this line is the capture, verbatim -----\n", 1)[1]


def _env_vllm(tmp_path: Path, text: str) -> Any:
    return paste_checks(tmp_path, text, "RT-ENV-VLLM")["RT-ENV-VLLM"]


def test_839_env_file_beside_the_compose_file_sets_cuda_launch_blocking() -> None:
    result = capture_checks("839", "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "issue"
    assert result.subjects == ("CUDA_LAUNCH_BLOCKING",)
    assert "synchronous" in result.message and "vllm" in result.message


def test_23814_compose_environment_sets_cuda_launch_blocking(tmp_path: Path) -> None:
    result = _env_vllm(tmp_path, COMPOSE_23814)
    assert result.status == "issue"
    assert result.subjects == ("CUDA_LAUNCH_BLOCKING",)


def test_350_command_line_prefix_sets_cuda_launch_blocking() -> None:
    result = capture_checks("350", "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "issue"
    assert "command line" in result.message


def test_523_whole_compose_service_without_env_file_sets_nothing_bad() -> None:
    # No variable at all, so none that looks wrong: ok (checks/rt.VLLM_ENV_LOOKALIKES, issue 28 step 4).
    result = capture_checks("523", "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "ok" and "(variables: none)" in result.message


def test_259_service_pasted_without_services_line_is_not_judged_whole() -> None:
    # Its `environment:` shows VLLM_LOGGING_LEVEL=DEBUG only, but the piece may go on past the paste.
    assert capture_checks("259", "RT-ENV-VLLM")["RT-ENV-VLLM"].status == "unknown"


def test_modelled_env_file_named_but_not_pasted_is_not_judged(tmp_path: Path) -> None:
    # Modelled: 839's compose file alone: vllm.env may set anything.
    compose = _capture_839().split("```\n</details>", 1)[0]
    assert _env_vllm(tmp_path, compose).status == "unknown"


def test_modelled_env_file_without_a_bad_value_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled: 839 with CUDA_LAUNCH_BLOCKING=0 in its env file: the service's env is shown whole.
    result = _env_vllm(tmp_path, _capture_839().replace("CUDA_LAUNCH_BLOCKING=1", "CUDA_LAUNCH_BLOCKING=0"))
    assert result.status == "not-an-issue"
    assert "CUDA_LAUNCH_BLOCKING=0" in result.message


def test_modelled_block_beside_that_is_no_env_file_is_not_read(tmp_path: Path) -> None:
    # Modelled: a log in the block below, not KEY=VALUE lines: the env file stays unshown.
    text = _capture_839().replace("CUDA_LAUNCH_BLOCKING=1", "INFO 02-11 vLLM API server version 0.7.2")
    assert _env_vllm(tmp_path, text).status == "unknown"


def test_modelled_two_env_files_and_one_block_is_not_attributed(tmp_path: Path) -> None:
    # Modelled: the service names two env files; the one block pasted could be either.
    text = _capture_839().replace("env_file: vllm.env", "env_file: [vllm.env, secrets.env]")
    assert _env_vllm(tmp_path, text).status == "unknown"


def test_environment_overrides_the_env_file() -> None:
    # Modelled: compose's order, the env file first and `environment:` over it.
    text = ("services:\n  vllm:\n    image: vllm/vllm-openai:v0.7.2\n    env_file: vllm.env\n    environment:\n"
            "      - CUDA_LAUNCH_BLOCKING=0\n---\n"
            f'{{"{PASTED_ENV_FILES}": {{"vllm.env": ["CUDA_LAUNCH_BLOCKING=1", "VLLM_USE_V1=0"]}}}}\n')
    (ctr,) = parse_compose(text)
    assert dict(ctr.env) == {"CUDA_LAUNCH_BLOCKING": "0", "VLLM_USE_V1": "0"}
    assert ctr.env_whole


# --- a whole `docker run`: every variable it sets is on its line -----------------------------------------------------

def test_891_whole_docker_run_setting_an_attention_backend_is_not_an_issue() -> None:
    """Corpus 891 (vllm#22331): `--env "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1"` on a whole docker run."""
    result = capture_checks("891", "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "not-an-issue"
    assert "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1" in result.message


RUN = ("docker run --gpus all --ipc=host {opts} vllm/vllm-openai:v0.10.1 --model Qwen/Qwen3-8B "
       "--tensor-parallel-size 2\n")


def test_modelled_docker_run_reading_an_env_file_is_not_judged_whole(tmp_path: Path) -> None:
    result = _env_vllm(tmp_path, RUN.format(opts="--env-file ./vllm.env -e VLLM_LOGGING_LEVEL=INFO"))
    assert result.status == "unknown"


def test_modelled_docker_run_setting_cuda_launch_blocking_is_an_issue(tmp_path: Path) -> None:
    result = _env_vllm(tmp_path, RUN.format(opts="--env-file ./vllm.env -e CUDA_LAUNCH_BLOCKING=1"))
    assert result.status == "issue" and "CUDA_LAUNCH_BLOCKING=1" in result.message
